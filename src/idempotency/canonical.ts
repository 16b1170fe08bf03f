import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal documents hash equally. Built by
 * appending to one string (no array of parts per object or array): it runs on every emit body.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out += `${i === 0 ? '' : ','}${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`;
  }
  return `${out}}`;
}

/** What makes two requests "the same": method, route pattern and the canonical body. */
export function requestFingerprint(method: string, route: string, body: unknown, raw: Buffer): string {
  const hash = createHash('sha256').update(`${method} ${route.toLowerCase()}\n`);
  if (body !== undefined) hash.update(canonicalJson(body));
  else hash.update(raw);
  return hash.digest('hex');
}
