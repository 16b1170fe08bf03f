import { parseEnvironment, type Environment } from '../environments.ts';
import type { HttpMethod, Route } from './types.ts';

// Routes are patterns of segments: literals, {name} parameters, and the special {env},
// which only matches a DGII environment name. Literal segments match case-insensitively
// (DGII's receiver paths must, and nothing is gained by refusing /API/keys elsewhere).

type Segment = { kind: 'literal'; value: string } | { kind: 'param'; name: string } | { kind: 'env' };

interface Compiled {
  route: Route;
  segments: Segment[];
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string>; env: Environment | null }
  | { kind: 'method-not-allowed'; allow: HttpMethod[] }
  | { kind: 'not-found' };

function compile(path: string): Segment[] {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map((s): Segment => {
      if (s === '{env}') return { kind: 'env' };
      const param = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(s);
      if (param?.[1] !== undefined) return { kind: 'param', name: param[1] };
      if (/[{}]/.test(s)) throw new Error(`bad route segment "${s}" in ${path}`);
      return { kind: 'literal', value: s.toLowerCase() };
    });
}

/** `lower` holds the parts in lower case, for the literal segments (compared case-insensitively). */
function matchSegments(segments: Segment[], parts: string[], lower: string[]): { params: Record<string, string>; env: Environment | null } | null {
  // Literals first: most routes of the same length fail there, before anything is allocated.
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as Segment;
    if (seg.kind === 'literal' && seg.value !== lower[i]) return null;
  }
  let params: Record<string, string> | null = null;
  let env: Environment | null = null;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as Segment;
    if (seg.kind === 'literal') continue;
    const part = parts[i] as string;
    params ??= {};
    if (seg.kind === 'env') {
      env = parseEnvironment(part);
      if (env === null) return null;
      params.env = env;
    } else {
      params[seg.name] = part;
    }
  }
  return { params: params ?? NO_PARAMS, env };
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class Router {
  private readonly compiled: Compiled[] = [];
  /** The routes by their number of segments: a request is matched only against those of its length. */
  private readonly byLength = new Map<number, Compiled[]>();

  add(route: Route): void {
    const segments = compile(route.path);
    const clash = this.compiled.find((c) => c.route.method === route.method && c.route.path.toLowerCase() === route.path.toLowerCase());
    if (clash !== undefined) throw new Error(`route ${route.method} ${route.path} registered twice`);
    const compiled = { route, segments };
    this.compiled.push(compiled);
    const same = this.byLength.get(segments.length);
    if (same === undefined) this.byLength.set(segments.length, [compiled]);
    else same.push(compiled);
  }

  get routes(): readonly Route[] {
    return this.compiled.map((c) => c.route);
  }

  /** `parts` are the decoded path segments. HEAD is answered by the GET route. */
  match(method: string, parts: string[]): Match {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const candidates = this.byLength.get(parts.length);
    if (candidates === undefined) return { kind: 'not-found' };
    const lower = parts.map((p) => p.toLowerCase());
    let allow: Set<HttpMethod> | null = null;
    for (const c of candidates) {
      const m = matchSegments(c.segments, parts, lower);
      if (m === null) continue;
      if (c.route.method === wanted) return { kind: 'found', route: c.route, params: m.params, env: m.env };
      (allow ??= new Set()).add(c.route.method);
    }
    return allow !== null ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'not-found' };
  }
}

/** Splits and percent-decodes a path; null when an escape is malformed. */
export function splitPath(path: string): string[] | null {
  const parts: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    // Most segments have no escape, and decodeURIComponent costs even then.
    if (!raw.includes('%')) {
      parts.push(raw);
      continue;
    }
    try {
      parts.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return parts;
}
