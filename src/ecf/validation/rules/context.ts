// What a business rule sees: the normalised document, read through views that know each
// element's path and whether the client's value for it was already refused by the XSD pass.
import { parseDecimal } from '../../decimal.ts';
import { schemaHasBelowRoot } from '../../schema/ecf-schema.ts';
import type { Dec } from '../../decimal.ts';
import type { EcfTipo } from '../../ecf-types.ts';
import type { EcfObject, EcfValue } from '../../types.ts';

export interface View {
  readonly path: string;
  readonly value: EcfObject | undefined;
  group(name: string): View;
  items(name: string): readonly View[];
  text(name: string): string | undefined;
  amount(name: string): Dec | undefined;
  /** The client sent the element but the structural pass refused it (or an ancestor). */
  refused(name: string): boolean;
  /** The client sent the element, valid or not. */
  sent(name: string): boolean;
  /** Path of a child element, for error reports. */
  at(name: string): string;
}

export interface RuleContext {
  readonly tipo: EcfTipo;
  readonly root: View;
  /** Whether this e-CF type's XSD has the element, by path from ECF, e.g. "Encabezado.Totales.ITBIS1". */
  has(path: string): boolean;
}

/** A finding is where a rule failed and, optionally, the numbers that show why. */
export interface Finding {
  readonly path: string;
  readonly detail?: string;
}

function isObject(value: EcfValue | undefined): value is EcfObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Views are created for the elements rules read, so they are cheap class instances; each keeps
 * the views of its children once made, as the rules read the same groups and lines many times.
 */
class ElementView implements View {
  readonly value: EcfObject | undefined;
  readonly path: string;
  private groups: Map<string, View> | undefined;
  private lists: Map<string, readonly View[]> | undefined;
  /** null when the structural pass refused nothing (nearly always): no path is built to ask. */
  private readonly isRefused: ((path: string) => boolean) | null;

  constructor(value: EcfObject | undefined, path: string, isRefused: ((path: string) => boolean) | null) {
    this.value = value;
    this.path = path;
    this.isRefused = isRefused;
  }

  at(name: string): string {
    return `${this.path}.${name}`;
  }

  text(name: string): string | undefined {
    const v = this.value?.[name];
    return typeof v === 'string' && !this.refused(name) ? v : undefined;
  }

  group(name: string): View {
    let view = this.groups?.get(name);
    if (view === undefined) {
      const v = this.value?.[name];
      view = new ElementView(isObject(v) ? v : undefined, this.at(name), this.isRefused);
      (this.groups ??= new Map()).set(name, view);
    }
    return view;
  }

  items(name: string): readonly View[] {
    let views = this.lists?.get(name);
    if (views === undefined) {
      const v = this.value?.[name];
      const list = Array.isArray(v) ? (v as readonly EcfValue[]) : [];
      views = list.map((item, i) => new ElementView(isObject(item) ? item : undefined, `${this.at(name)}[${i}]`, this.isRefused));
      (this.lists ??= new Map()).set(name, views);
    }
    return views;
  }

  amount(name: string): Dec | undefined {
    const t = this.text(name);
    return t === undefined ? undefined : parseDecimal(t);
  }

  refused(name: string): boolean {
    return this.isRefused !== null && this.isRefused(this.at(name));
  }

  sent(name: string): boolean {
    return this.value?.[name] !== undefined || this.refused(name);
  }
}

export function createContext(tipo: EcfTipo, ecf: EcfObject, invalid: ReadonlySet<string>): RuleContext {
  // A value counts as refused when it, or any element containing it, failed the XSD pass.
  const isRefused = invalid.size === 0 ? null : (path: string): boolean => {
    for (let p = path; p !== ''; p = p.replace(/(\.[^.[\]]*|\[\d+\])$/, '')) {
      if (invalid.has(p)) return true;
      if (!/[.[]/.test(p)) break;
    }
    return false;
  };
  return {
    tipo,
    root: new ElementView(ecf, 'ECF', isRefused),
    has: (path) => schemaHasBelowRoot(tipo, path),
  };
}
