import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal documents hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** What makes two requests "the same": method, route pattern and the canonical body. */
export function requestFingerprint(method: string, route: string, body: unknown, raw: Buffer): string {
  const hash = createHash('sha256').update(`${method} ${route.toLowerCase()}\n`);
  if (body !== undefined) hash.update(canonicalJson(body));
  else hash.update(raw);
  return hash.digest('hex');
}
