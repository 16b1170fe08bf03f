// The shape of a business rule: an id, the message its findings carry, the types it applies
// to (all by default; most rules also adapt through the type's schema) and a check.
import type { EcfTipo } from '../../ecf-types.ts';
import type { Finding, RuleContext } from './context.ts';

export interface Rule {
  readonly id: string;
  /** Completes the sentence "<path> …"; a finding's detail is appended after "; ". */
  readonly message: string;
  readonly appliesTo?: readonly EcfTipo[];
  readonly check: (ctx: RuleContext) => Finding[];
}
