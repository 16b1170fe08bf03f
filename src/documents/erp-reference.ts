import type { FieldError } from '../errors.ts';

// The ERP's own handle on a document, sent next to `ECF` in the emit body: `referencia` (its
// order or invoice id, a list filter) and `metadata` (free string pairs). Both are stored and
// shown, never written into the e-CF XML, and reach receivers only under the event's `erp` key.

export interface ErpReference {
  referencia: string | null;
  metadata: Record<string, string> | null;
}

export const REFERENCIA_MAX = 100;
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_BYTES = 4096;
export const METADATA_KEY_MAX = 100;

const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_WHITESPACE = /[\0-\x08\x0B\x0C\x0E-\x1F\x7F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` is not 1–`max` printable characters, or null. */
export function referenciaProblem(text: string, max = REFERENCIA_MAX): string | null {
  const length = [...text].length;
  if (length < 1 || length > max) return `must be 1 to ${max} characters; it has ${length}`;
  if (CONTROL.test(text)) return 'must be printable characters (no control characters)';
  if (LONE_SURROGATE.test(text)) return 'must be text (it holds a lone UTF-16 surrogate)';
  if (text.trim() === '') return 'must not be only spaces';
  return null;
}

function metadataProblems(value: unknown): FieldError[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: 'metadata', message: `must be an object of string keys and string values, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}` }];
  }
  const entries = Object.entries(value);
  const errors: FieldError[] = [];
  if (entries.length > METADATA_MAX_KEYS) errors.push({ path: 'metadata', message: `has ${entries.length} keys; at most ${METADATA_MAX_KEYS} are allowed` });
  let bytes = 0;
  for (const [key, v] of entries) {
    const keyProblem = referenciaProblem(key, METADATA_KEY_MAX);
    if (keyProblem !== null) errors.push({ path: `metadata.${key}`, message: `key ${keyProblem}` });
    if (typeof v !== 'string') {
      errors.push({ path: `metadata.${key}`, message: `must be a string, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}` });
      continue;
    }
    if (CONTROL_BUT_WHITESPACE.test(v) || LONE_SURROGATE.test(v)) errors.push({ path: `metadata.${key}`, message: 'must be text without control characters' });
    bytes += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(v, 'utf8');
  }
  if (bytes > METADATA_MAX_BYTES) errors.push({ path: 'metadata', message: `holds ${bytes} bytes of keys and values (UTF-8); at most ${METADATA_MAX_BYTES} are allowed` });
  return errors;
}

/**
 * Takes `referencia` and `metadata` out of an emit body: the rest (`{ ECF }`) goes to e-CF
 * validation, and the problems of these two are reported beside its own.
 */
export function splitErpReference(body: unknown): { rest: unknown; erp: ErpReference; errors: FieldError[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { rest: body, erp: { referencia: null, metadata: null }, errors: [] };
  const { referencia, metadata, ...rest } = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  let ref: string | null = null;
  if (referencia !== undefined) {
    if (typeof referencia !== 'string') errors.push({ path: 'referencia', message: `must be a string, not ${referencia === null ? 'null' : typeof referencia}` });
    else {
      const problem = referenciaProblem(referencia);
      if (problem === null) ref = referencia;
      else errors.push({ path: 'referencia', message: problem });
    }
  }
  let meta: Record<string, string> | null = null;
  if (metadata !== undefined) {
    const problems = metadataProblems(metadata);
    if (problems.length === 0) meta = metadata as Record<string, string>;
    errors.push(...problems);
  }
  return { rest, erp: { referencia: ref, metadata: meta }, errors };
}

/** The `erp` key of an event payload: only for documents that carry a reference or metadata. */
export function erpPayload(erp: ErpReference): { erp?: { referencia: string | null; metadata: Record<string, string> } } {
  if (erp.referencia === null && erp.metadata === null) return {};
  return { erp: { referencia: erp.referencia, metadata: erp.metadata ?? {} } };
}
