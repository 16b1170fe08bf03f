import { validationError, type FieldError } from '../errors.ts';

// Reads fields from an untrusted JSON body, collecting every problem so the 422 lists
// them all. Each reader returns a usable value even when invalid (callers call done()
// before using any of them), which keeps call sites flat.

interface StringRule {
  min?: number;
  max: number;
  pattern?: RegExp;
  patternMessage?: string;
  trim?: boolean;
}

export class Input {
  readonly errors: FieldError[] = [];
  private readonly obj: Record<string, unknown>;
  private readonly seen = new Set<string>();
  private readonly prefix: string;

  constructor(body: unknown, prefix = '') {
    this.prefix = prefix;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      this.obj = body as Record<string, unknown>;
    } else {
      this.obj = {};
      if (body !== undefined) this.errors.push({ path: prefix || '$', message: 'must be a JSON object' });
    }
  }

  private path(name: string): string {
    return this.prefix ? `${this.prefix}.${name}` : name;
  }

  private get(name: string): unknown {
    this.seen.add(name);
    return Object.hasOwn(this.obj, name) ? this.obj[name] : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined && this.get(name) !== null;
  }

  string(name: string, rule: StringRule): string {
    return this.optionalString(name, rule, true) ?? '';
  }

  optionalString(name: string, rule: StringRule, required = false): string | undefined {
    const raw = this.get(name);
    if (raw === undefined || raw === null) {
      if (required) this.errors.push({ path: this.path(name), message: 'is required' });
      return undefined;
    }
    if (typeof raw !== 'string') {
      this.errors.push({ path: this.path(name), message: 'must be a string' });
      return undefined;
    }
    const v = rule.trim === false ? raw : raw.trim();
    const min = rule.min ?? 1;
    if (v.length < min) this.errors.push({ path: this.path(name), message: min === 1 ? 'must not be empty' : `must have at least ${min} characters` });
    else if (v.length > rule.max) this.errors.push({ path: this.path(name), message: `must have at most ${rule.max} characters` });
    else if (rule.pattern !== undefined && !rule.pattern.test(v)) this.errors.push({ path: this.path(name), message: rule.patternMessage ?? 'has an invalid format' });
    return v;
  }

  boolean(name: string, def: boolean): boolean {
    const raw = this.get(name);
    if (raw === undefined || raw === null) return def;
    if (typeof raw !== 'boolean') {
      this.errors.push({ path: this.path(name), message: 'must be true or false' });
      return def;
    }
    return raw;
  }

  /** Refuses keys no reader asked for, so a misspelt field is reported instead of ignored. */
  done(): void {
    for (const key of Object.keys(this.obj)) {
      if (!this.seen.has(key)) this.errors.push({ path: this.path(key), message: 'is not a known field' });
    }
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}

// No whitespace or control characters anywhere: they only serve to spoof or break what displays
// or stores the address (PostgreSQL text cannot even hold U+0000).
export const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;
export const RNC = /^(\d{9}|\d{11})$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
