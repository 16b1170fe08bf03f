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

/** A dotted path relative to a view: the groups to go through, then the element's name. */
interface SplitPath {
  readonly groups: readonly string[];
  readonly last: string;
}

/** Rule paths split once: the tables are constant, and rules read them on every document. */
const splitPaths = new Map<string, SplitPath>();

function splitPath(dotted: string): SplitPath {
  let split = splitPaths.get(dotted);
  if (split === undefined) {
    const parts = dotted.split('.');
    const last = parts.pop() as string;
    split = { groups: parts, last };
    splitPaths.set(dotted, split);
  }
  return split;
}

function ownerOf(view: View, split: SplitPath): View {
  let owner = view;
  for (const g of split.groups) owner = owner.group(g);
  return owner;
}

type Read = { readonly kind: 'refused' } | { readonly kind: 'absent' } | { readonly kind: 'value'; readonly value: Dec };

/** The answers without a value, shared: reading runs for every term of every sum on every document. */
const REFUSED: Read = { kind: 'refused' };
const ABSENT: Read = { kind: 'absent' };

function readSplit(view: View, split: SplitPath): Read {
  const owner = ownerOf(view, split);
  if (owner.refused(split.last)) return REFUSED;
  const value = owner.amount(split.last);
  return value === undefined ? ABSENT : { kind: 'value', value };
}

export function read(view: View, dotted: string): Read {
  return readSplit(view, splitPath(dotted));
}

export function collectionView(view: View, dotted: string): readonly View[] {
  const split = splitPath(dotted);
  return ownerOf(view, split).items(split.last);
}

/** The target's path in the schema (from ECF, no indexes): the scope's own path, then the target's. */
function schemaPathOf(spec: SumSpec): string {
  return spec.scope === 'document' ? spec.target : `DetallesItems.Item.${spec.target}`;
}

/** A term of a sum, its sign and path read once from the table. */
interface Term {
  readonly negative: boolean;
  readonly path: SplitPath;
}

function termOf(term: string): Term {
  const negative = term.charCodeAt(0) === 45; // '-'
  return { negative, path: splitPath(negative ? term.slice(1) : term) };
}

/** A SumSpec with its paths split and signs read, once per rule. */
interface CompiledSum {
  readonly spec: SumSpec;
  readonly schemaPath: string;
  readonly terms: readonly Term[];
  readonly collection: { readonly path: SplitPath; readonly fields: readonly Term[] } | undefined;
  readonly target: SplitPath;
}

function checkSum(sum: CompiledSum, ctx: RuleContext, scope: View): Finding[] {
  const { spec } = sum;
  let total = ZERO;
  let anyTerm = false;
  const addTerm = (base: View, term: Term): boolean => {
    const r = readSplit(base, term.path);
    if (r.kind === 'refused') return false;
    if (r.kind === 'value') {
      anyTerm = true;
      total = add(total, term.negative ? negate(r.value) : r.value);
    }
    return true;
  };
  for (const term of sum.terms) if (!addTerm(scope, term)) return [];
  if (sum.collection !== undefined) {
    for (const entry of ownerOf(scope, sum.collection.path).items(sum.collection.path.last)) {
      for (const field of sum.collection.fields) if (!addTerm(entry, field)) return [];
    }
  }
  const owner = ownerOf(scope, sum.target);
  const name = sum.target.last;
  const target = readSplit(scope, sum.target);
  if (target.kind === 'refused') return [];
  if (target.kind === 'absent') {
    const inSchema = ctx.has(sum.schemaPath);
    return spec.requiredWithTerms && anyTerm && inSchema
      ? [{ path: owner.at(name), detail: `it is missing; its parts add up to ${formatDec(total)}` }]
      : [];
  }
  if (within(target.value, total, TOLERANCE)) return [];
  return [{ path: owner.at(name), detail: `expected ${formatDec(total)}, got ${formatDec(target.value)}` }];
}

export function sumRule(spec: SumSpec): Rule {
  const sum: CompiledSum = {
    spec,
    schemaPath: schemaPathOf(spec),
    terms: (spec.terms ?? []).map(termOf),
    collection: spec.collection === undefined ? undefined : { path: splitPath(spec.collection.path), fields: spec.collection.fields.map(termOf) },
    target: splitPath(spec.target),
  };
  return {
    id: spec.id,
    message: spec.message,
    check: (ctx) => {
      if (spec.skip?.(ctx) === true) return [];
      if (spec.scope === 'document') return checkSum(sum, ctx, ctx.root);
      const findings: Finding[] = [];
      for (const item of ctx.root.group('DetallesItems').items('Item')) findings.push(...checkSum(sum, ctx, item));
      return findings;
    },
  };
}
