import { validationError, type FieldError } from '../errors.ts';
import { dateOutOfBounds, parseCalendarDate } from '../lib/dates.ts';

// Reads query parameters, collecting every problem; unknown parameters are refused so
// that a misspelt filter is reported instead of silently matching everything.

export class Query {
  readonly errors: FieldError[] = [];
  private readonly seen = new Set<string>();
  private readonly params: URLSearchParams;

  constructor(params: URLSearchParams) {
    this.params = params;
  }

  private raw(name: string): string | undefined {
    this.seen.add(name);
    const all = this.params.getAll(name);
    if (all.length > 1) this.errors.push({ path: `query.${name}`, message: 'must be given once' });
    return all[0];
  }

  string(name: string, check?: { pattern: RegExp; message: string }): string | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') return undefined;
    if (check !== undefined && !check.pattern.test(v)) this.errors.push({ path: `query.${name}`, message: check.message });
    return v;
  }

  oneOf<T extends string | number>(name: string, values: readonly T[]): T | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') return undefined;
    const found = values.find((x) => String(x) === v);
    if (found === undefined) this.errors.push({ path: `query.${name}`, message: `must be one of ${values.join(', ')}` });
    return found;
  }

  int(name: string, def: number, min: number, max: number): number {
    const v = this.raw(name);
    if (v === undefined || v === '') return def;
    if (!/^\d{1,9}$/.test(v) || Number(v) < min || Number(v) > max) {
      this.errors.push({ path: `query.${name}`, message: `must be an integer from ${min} to ${max}` });
      return def;
    }
    return Number(v);
  }

  /** A calendar date as dd-MM-yyyy or yyyy-MM-dd within EARLIEST_DATE … latestDate(), answered as yyyy-MM-dd. */
  date(name: string): string | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const parsed = parseCalendarDate(v);
    if (parsed === null) {
      this.errors.push({ path: `query.${name}`, message: 'must be a date as dd-MM-yyyy or yyyy-MM-dd' });
      return undefined;
    }
    const outside = dateOutOfBounds(parsed);
    if (outside !== null) {
      this.errors.push({ path: `query.${name}`, message: outside });
      return undefined;
    }
    return parsed;
  }

  /** An opaque cursor made by encodeCursor; anything else is a 422. */
  cursor(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') return undefined;
    const decoded = /^[A-Za-z0-9_-]{1,64}$/.test(v) ? Buffer.from(v, 'base64url').toString('utf8') : '';
    const m = /^c1:(\d{1,18})$/.exec(decoded);
    if (m?.[1] === undefined) {
      this.errors.push({ path: `query.${name}`, message: 'is not a cursor this server issued' });
      return undefined;
    }
    return m[1];
  }

  done(): void {
    for (const name of new Set(this.params.keys())) {
      if (!this.seen.has(name)) this.errors.push({ path: `query.${name}`, message: 'is not a known parameter' });
    }
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}

export { encodeCursor } from '../lib/page.ts';
