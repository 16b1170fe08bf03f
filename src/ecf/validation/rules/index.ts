// Every business rule in one table, run in order; each applies to the types listed in its
// appliesTo (all types when absent) and adapts to the elements the type's schema has.
import { DOCUMENT_RULES } from './document-rules.ts';
import { FISCAL_RULES } from './fiscal-rules.ts';
import { LINE_RULES } from './line-rules.ts';
import { TOTAL_RULES } from './total-rules.ts';
import type { EcfTipo } from '../../ecf-types.ts';
import type { FieldError } from '../../types.ts';
import type { RuleContext } from './context.ts';
import type { Rule } from './rule.ts';

export const ECF_RULES: readonly Rule[] = [...DOCUMENT_RULES, ...FISCAL_RULES, ...LINE_RULES, ...TOTAL_RULES];

/** ECF_RULES by the type they apply to, chosen once per type rather than on every document. */
const rulesOfType = new Map<EcfTipo, readonly Rule[]>();

function applicable(tipo: EcfTipo, rules: readonly Rule[]): readonly Rule[] {
  const cached = rules === ECF_RULES ? rulesOfType.get(tipo) : undefined;
  if (cached !== undefined) return cached;
  const chosen = rules.filter((rule) => rule.appliesTo === undefined || rule.appliesTo.includes(tipo));
  if (rules === ECF_RULES) rulesOfType.set(tipo, chosen);
  return chosen;
}

export function runRules(ctx: RuleContext, rules: readonly Rule[] = ECF_RULES): FieldError[] {
  const errors: FieldError[] = [];
  for (const rule of applicable(ctx.tipo, rules)) {
    for (const f of rule.check(ctx)) {
      errors.push({ path: f.path, message: f.detail === undefined ? rule.message : `${rule.message}; ${f.detail}` });
    }
  }
  return errors;
}
