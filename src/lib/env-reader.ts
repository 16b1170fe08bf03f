// Reads settings from an environment map, recording each variable's default and description (the
// generated table of docs/configuration.md) and collecting every problem instead of stopping at
// the first, so a misconfigured service names all of them at once. src/config.ts declares the
// settings with it; nothing else reads the environment.

export interface VariableDoc {
  name: string;
  default: string;
  description: string;
}

export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export class Reader {
  readonly problems: string[] = [];
  readonly docs: VariableDoc[] = [];
  private readonly env: Env;

  constructor(env: Env) {
    this.env = env;
  }

  private raw(name: string, def: string, description: string): string | undefined {
    this.docs.push({ name, default: def, description });
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  string(name: string, def: string, description: string): string {
    return this.raw(name, def, description) ?? def;
  }

  optional(name: string, description: string): string | null {
    return this.raw(name, '(unset)', description) ?? null;
  }

  int(name: string, def: number, min: number, max: number, description: string): number {
    const v = this.raw(name, String(def), description);
    if (v === undefined) return def;
    if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${v}")`);
      return def;
    }
    return Number(v);
  }

  intList(name: string, def: number[], min: number, max: number, description: string): number[] {
    const v = this.raw(name, def.join(','), description);
    if (v === undefined) return def;
    const parts = v.split(',').map((x) => x.trim());
    if (parts.length === 0 || parts.some((x) => !/^\d+$/.test(x) || Number(x) < min || Number(x) > max)) {
      this.problems.push(`${name} must be a comma-separated list of integers from ${min} to ${max} (got "${v}")`);
      return def;
    }
    return parts.map(Number);
  }

  /** `shown` is the default as documented, when it depends on other settings. */
  bool(name: string, def: boolean, description: string, shown = String(def)): boolean {
    const v = this.raw(name, shown, description);
    if (v === undefined) return def;
    if (/^(true|1|yes|on)$/i.test(v)) return true;
    if (/^(false|0|no|off)$/i.test(v)) return false;
    this.problems.push(`${name} must be true or false (got "${v}")`);
    return def;
  }

  oneOf<T extends string>(name: string, values: readonly T[], def: T, description: string): T {
    const v = this.raw(name, def, `${description} One of: ${values.join(', ')}.`);
    if (v === undefined) return def;
    const found = values.find((x) => x === v.toLowerCase());
    if (found === undefined) {
      this.problems.push(`${name} must be one of ${values.join(', ')} (got "${v}")`);
      return def;
    }
    return found;
  }

  problem(message: string): void {
    this.problems.push(message);
  }
}
