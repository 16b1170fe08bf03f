import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

// The signature headers of a delivery. Two schemes over the same exact body bytes:
// - X-ECF-Signature: GitHub's X-Hub-Signature-256 scheme (sha256=<hex HMAC-SHA256 of the body>,
//   keyed with the UTF-8 bytes of the whole secret string), which @octokit/webhooks-methods verifies.
// - Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of
//   "id.timestamp.body">), keyed with the base64 decoding of what follows `whsec_`, which the
//   `standardwebhooks` and `svix` libraries verify. A secret not in the whsec_ form is keyed with
//   its UTF-8 bytes (those libraries then need it passed as raw bytes).
// During a rotation's overlap every delivery is signed with both secrets, newest first: two
// space-separated v1 values, and two comma-separated sha256= values.

const WHSEC = /^whsec_([A-Za-z0-9+/_-]+={0,2})$/;

/** The HMAC key of the Standard Webhooks signature for a secret. */
export function standardWebhooksKey(secret: string): Buffer {
  const m = WHSEC.exec(secret);
  if (m?.[1] === undefined) return Buffer.from(secret, 'utf8');
  return Buffer.from(m[1], 'base64');
}

/** Why a `whsec_` secret cannot key Standard Webhooks signatures, or null when it can (or is not one). */
export function whsecProblem(secret: string): string | null {
  if (!secret.startsWith('whsec_')) return null;
  const m = WHSEC.exec(secret);
  if (m?.[1] === undefined) return 'a whsec_ secret must be whsec_ followed by base64';
  const bytes = Buffer.from(m[1], 'base64').length;
  if (bytes < 16 || bytes > 64) return `a whsec_ secret must encode 16 to 64 bytes; this one encodes ${bytes}`;
  return null;
}

/** A secret's two HMAC keys, prepared once: preparing them per delivery was a visible cost. */
interface SecretKeys {
  github: KeyObject;
  standard: KeyObject;
}
const KEYS_MAX = 10_000;
const prepared = new Map<string, SecretKeys>();
function keysOf(secret: string): SecretKeys {
  let keys = prepared.get(secret);
  if (keys === undefined) {
    keys = { github: createSecretKey(Buffer.from(secret, 'utf8')), standard: createSecretKey(standardWebhooksKey(secret)) };
    if (prepared.size >= KEYS_MAX) prepared.clear();
    prepared.set(secret, keys);
  }
  return keys;
}

/** X-ECF-Signature: GitHub's X-Hub-Signature-256 scheme over the exact bytes sent. */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', keysOf(secret).github).update(body, 'utf8').digest('hex')}`;
}

/** One webhook-signature value: v1,<base64 HMAC-SHA256 of "id.timestamp.body">. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keysOf(secret).standard).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * Every signature header of one attempt. `secrets` holds the current secret first, then the
 * previous one while its overlap lasts; empty when no secret is set (then only webhook-id and
 * webhook-timestamp are sent, for ordering and deduplication).
 */
export function signatureHeaders(secrets: readonly string[], deliveryId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const headers: Record<string, string> = { 'webhook-id': deliveryId, 'webhook-timestamp': String(timestamp) };
  if (secrets.length === 0) return headers;
  headers['webhook-signature'] = secrets.map((s) => standardSignature(s, deliveryId, timestamp, body)).join(' ');
  headers['x-ecf-signature'] = secrets.map((s) => signatureHeader(s, body)).join(', ');
  return headers;
}
