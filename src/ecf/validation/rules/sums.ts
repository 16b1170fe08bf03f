// Table-driven "this amount equals the sum of those" rules. Paths are dotted, relative to the
// document (ECF) or to each line (Item); a leading "-" subtracts a term. Absent terms count 0.
import { add, formatDec, negate, within, ZERO } from '../../decimal.ts';
import { TOLERANCE } from './tax-tables.ts';
import type { Dec } from '../../decimal.ts';
import type { Finding, RuleContext, View } from './context.ts';
import type { Rule } from './rule.ts';

export interface SumSpec {
  readonly id: string;
  readonly scope: 'document' | 'item';
  readonly target: string;
  readonly terms?: readonly string[];
  /** Repeating entries whose fields are all added, e.g. every Item's Retencion.MontoISRRetenido. */
  readonly collection?: { readonly path: string; readonly fields: readonly string[] };
  /** Whether the target must be sent when any term is non-absent. */
  readonly requiredWithTerms: boolean;
  readonly message: string;
  readonly skip?: (ctx: RuleContext) => boolean;
}

/** Rule paths split once: the tables are constant, and rules read them on every document. */
const splitPaths = new Map<string, { readonly groups: readonly string[]; readonly last: string }>();

function parent(view: View, dotted: string): [View, string] {
  let split = splitPaths.get(dotted);
  if (split === undefined) {
    const parts = dotted.split('.');
    const last = parts.pop() as string;
    split = { groups: parts, last };
    splitPaths.set(dotted, split);
  }
  let owner = view;
  for (const g of split.groups) owner = owner.group(g);
  return [owner, split.last];
}

type Read = { kind: 'refused' } | { kind: 'absent' } | { kind: 'value'; value: Dec };

export function read(view: View, dotted: string): Read {
  const [owner, name] = parent(view, dotted);
  if (owner.refused(name)) return { kind: 'refused' };
  const value = owner.amount(name);
  return value === undefined ? { kind: 'absent' } : { kind: 'value', value };
}

export function collectionView(view: View, dotted: string): readonly View[] {
  const [owner, name] = parent(view, dotted);
  return owner.items(name);
}

/** The target's path in the schema (from ECF, no indexes): the scope's own path, then the target's. */
function schemaPathOf(spec: SumSpec): string {
  return spec.scope === 'document' ? spec.target : `DetallesItems.Item.${spec.target}`;
}

function checkSum(spec: SumSpec, ctx: RuleContext, scope: View, schemaPath: string): Finding[] {
  let total = ZERO;
  let anyTerm = false;
  const addTerm = (base: View, term: string): boolean => {
    const negative = term.charCodeAt(0) === 45; // '-'
    const r = read(base, negative ? term.slice(1) : term);
    if (r.kind === 'refused') return false;
    if (r.kind === 'value') {
      anyTerm = true;
      total = add(total, negative ? negate(r.value) : r.value);
    }
    return true;
  };
  for (const term of spec.terms ?? []) if (!addTerm(scope, term)) return [];
  if (spec.collection !== undefined) {
    for (const entry of collectionView(scope, spec.collection.path)) {
      for (const field of spec.collection.fields) if (!addTerm(entry, field)) return [];
    }
  }
  const [owner, name] = parent(scope, spec.target);
  const target = read(scope, spec.target);
  if (target.kind === 'refused') return [];
  if (target.kind === 'absent') {
    const inSchema = ctx.has(schemaPath);
    return spec.requiredWithTerms && anyTerm && inSchema
      ? [{ path: owner.at(name), detail: `it is missing; its parts add up to ${formatDec(total)}` }]
      : [];
  }
  if (within(target.value, total, TOLERANCE)) return [];
  return [{ path: owner.at(name), detail: `expected ${formatDec(total)}, got ${formatDec(target.value)}` }];
}

export function sumRule(spec: SumSpec): Rule {
  const schemaPath = schemaPathOf(spec);
  return {
    id: spec.id,
    message: spec.message,
    check: (ctx) => {
      if (spec.skip?.(ctx) === true) return [];
      const scopes = spec.scope === 'document' ? [ctx.root] : ctx.root.group('DetallesItems').items('Item');
      return scopes.flatMap((scope) => checkSum(spec, ctx, scope, schemaPath));
    },
  };
}
