// What a jsonb column gives back for an object of strings, without reading it back: jsonb keeps
// one copy of each key and lists keys by their UTF-8 length, then byte by byte (PostgreSQL's
// lengthCompareJsonbStringValue), not in the order they were written.

/** Orders two keys as jsonb does: the shorter UTF-8 first, then the bytes compared unsigned. */
export function compareJsonbKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a, 'utf8');
  const lb = Buffer.byteLength(b, 'utf8');
  if (la !== lb) return la - lb;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * `value` as it comes back from a jsonb column and JSON.parse: the same entries, inserted in
 * jsonb's key order (the engine itself still lists integer-like keys first, as it does for
 * the parsed column value).
 */
export function asStoredJsonb(value: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(value).sort(compareJsonbKeys)) {
    // JSON.parse makes "__proto__" an own key; an assignment would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(out, key, { value: value[key], enumerable: true, writable: true, configurable: true });
    else out[key] = value[key] as string;
  }
  return out;
}
