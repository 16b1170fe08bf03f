import { createHash } from 'node:crypto';

/**
 * The value with the keys of every object in sorted order (arrays keep theirs), for
 * JSON.stringify: copying and letting the engine's own serialiser write the text costs half
 * of writing it key by key in JavaScript, and this runs on every emit body.
 */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = sortedKeys(value[i]);
    return out;
  }
  const keys = Object.keys(value).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = sortedKeys((value as Record<string, unknown>)[k]);
    // "__proto__" is an own key of parsed JSON; assigned, it would set the copy's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** JSON with object keys sorted at every level, so equal documents hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value)) ?? 'null';
}

/** What makes two requests "the same": method, route pattern and the canonical body. */
export function requestFingerprint(method: string, route: string, body: unknown, raw: Buffer): string {
  const hash = createHash('sha256').update(`${method} ${route.toLowerCase()}\n`);
  if (body !== undefined) hash.update(canonicalJson(body));
  else hash.update(raw);
  return hash.digest('hex');
}
