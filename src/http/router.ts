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

function matchSegments(segments: Segment[], parts: string[]): { params: Record<string, string>; env: Environment | null } | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  let env: Environment | null = null;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as Segment;
    const part = parts[i] as string;
    if (seg.kind === 'literal') {
      if (seg.value !== part.toLowerCase()) return null;
    } else if (seg.kind === 'env') {
      env = parseEnvironment(part);
      if (env === null) return null;
      params.env = env;
    } else {
      params[seg.name] = part;
    }
  }
  return { params, env };
}

export class Router {
  private readonly compiled: Compiled[] = [];

  add(route: Route): void {
    const segments = compile(route.path);
    const clash = this.compiled.find((c) => c.route.method === route.method && c.route.path.toLowerCase() === route.path.toLowerCase());
    if (clash !== undefined) throw new Error(`route ${route.method} ${route.path} registered twice`);
    this.compiled.push({ route, segments });
  }

  get routes(): readonly Route[] {
    return this.compiled.map((c) => c.route);
  }

  /** `parts` are the decoded path segments. HEAD is answered by the GET route. */
  match(method: string, parts: string[]): Match {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const allow = new Set<HttpMethod>();
    for (const c of this.compiled) {
      const m = matchSegments(c.segments, parts);
      if (m === null) continue;
      if (c.route.method === wanted) return { kind: 'found', route: c.route, ...m };
      allow.add(c.route.method);
    }
    return allow.size > 0 ? { kind: 'method-not-allowed', allow: [...allow] } : { kind: 'not-found' };
  }
}

/** Splits and percent-decodes a path; null when an escape is malformed. */
export function splitPath(path: string): string[] | null {
  const parts: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    try {
      parts.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return parts;
}
