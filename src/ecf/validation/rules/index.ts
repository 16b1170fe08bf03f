// Every business rule in one table, run in order; each applies to the types listed in its
// appliesTo (all types when absent) and adapts to the elements the type's schema has.
import { DOCUMENT_RULES } from './document-rules.ts';
import { LINE_RULES } from './line-rules.ts';
import { TOTAL_RULES } from './total-rules.ts';
import type { FieldError } from '../../types.ts';
import type { RuleContext } from './context.ts';
import type { Rule } from './rule.ts';

export const ECF_RULES: readonly Rule[] = [...DOCUMENT_RULES, ...LINE_RULES, ...TOTAL_RULES];

export function runRules(ctx: RuleContext, rules: readonly Rule[] = ECF_RULES): FieldError[] {
  return rules
    .filter((rule) => rule.appliesTo === undefined || rule.appliesTo.includes(ctx.tipo))
    .flatMap((rule) => rule.check(ctx).map((f): FieldError => ({
      path: f.path,
      message: f.detail === undefined ? rule.message : `${rule.message}; ${f.detail}`,
    })));
}
