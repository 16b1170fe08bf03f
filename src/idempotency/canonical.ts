import { createHash, hash } from 'node:crypto';

/** Beyond this many keys the engine's sort (insertion sort is quadratic: a hostile body could have thousands). */
const INSERTION_SORT_MAX = 32;

/**
 * Sorts an object's keys as Array.prototype.sort() would (UTF-16 code units), by insertion when
 * they are few, as an e-CF's objects' keys are: the engine's sort allocates a work area per call.
 */
function sortInPlace(keys: string[]): string[] {
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** Integer keys (0 … 2³² − 2): the engine enumerates them first, in numeric order, whatever their insertion order. */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295;
}

/** sortedKeys met an object whose keys the engine would reorder (see below). */
const REORDERED = Symbol('reordered');

/**
 * The value with the keys of every object in sorted order (arrays keep theirs), for
 * JSON.stringify: copying and letting the engine's own serialiser write the text costs half
 * of writing it key by key in JavaScript, and this runs on every emit body. REORDERED when an
 * object has an integer key: a copy would list those first, in numeric order ("9" before
 * "10"), where the canonical text has every key in code-unit order.
 */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = sortedKeys(value[i]);
      if (v === REORDERED) return REORDERED;
      out[i] = v;
    }
    return out;
  }
  const keys = sortInPlace(Object.keys(value));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (isArrayIndex(k)) return REORDERED;
    const v = sortedKeys((value as Record<string, unknown>)[k]);
    if (v === REORDERED) return REORDERED;
    // "__proto__" is an own key of parsed JSON; assigned, it would set the copy's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** The canonical text written key by key: for values sortedKeys cannot copy in order. */
function writtenOut(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + writtenOut(value[i]);
    return `${out}]`;
  }
  const keys = sortInPlace(Object.keys(value));
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out += `${i === 0 ? '' : ','}${JSON.stringify(k)}:${writtenOut((value as Record<string, unknown>)[k])}`;
  }
  return `${out}}`;
}

/**
 * JSON with object keys sorted at every level (by UTF-16 code units), so equal documents hash
 * equally. The text is what fingerprints of stored keys were made from: it must not change.
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedKeys(value);
  return copy === REORDERED ? writtenOut(value) : (JSON.stringify(copy) ?? 'null');
}

/**
 * The resource a request names: its route with the path parameters filled in (percent-encoded,
 * so a value cannot forge a separator), literal segments lower-cased as the router compares them.
 * `/{env}/documentos-recibidos/{id}/aprobacion` with id X is `/TesteCF/documentos-recibidos/X/aprobacion`.
 */
export function resourcePath(routePath: string, params: Readonly<Record<string, string>>): string {
  return routePath
    .split('/')
    .map((segment) => {
      const name = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(segment)?.[1];
      return name === undefined ? segment.toLowerCase() : encodeURIComponent(params[name] ?? '');
    })
    .join('/');
}

/** Fingerprints made since the path counts carry this prefix; a bare digest is the older formula's. */
const FINGERPRINT_PREFIX = 'v2:';

/**
 * What makes two requests "the same": method, the full path of the resource (resourcePath)
 * and the canonical body: the same key on another document's …/aprobacion or …/reenviar is
 * another request (409 IDEMPOTENCY_KEY_CONFLICT), not a replay of the first.
 */
export function requestFingerprint(method: string, path: string, body: unknown, raw: Buffer): string {
  return FINGERPRINT_PREFIX + digest(`${method} ${path}\n`, body, raw);
}

/**
 * The formula before the path counted: method and route pattern only. Keys stored by it (for at
 * most IDEMPOTENCY_TTL_HOURS after an upgrade) are still compared by it, so a retry that spans
 * the upgrade replays instead of being refused and sent again under a new key.
 */
export function legacyRequestFingerprint(method: string, route: string, body: unknown, raw: Buffer): string {
  return digest(`${method} ${route.toLowerCase()}\n`, body, raw);
}

/** Whether a stored fingerprint was made by legacyRequestFingerprint. */
export function isLegacyFingerprint(stored: string): boolean {
  return !stored.startsWith(FINGERPRINT_PREFIX);
}

function digest(head: string, body: unknown, raw: Buffer): string {
  // One call, no Hash object, for a JSON body (every emit); the same digest as hashing the parts in turn.
  if (body !== undefined) return hash('sha256', head + canonicalJson(body), 'hex');
  return createHash('sha256').update(head).update(raw).digest('hex');
}
