import { hash, randomBytes } from 'node:crypto';

// API keys look like ecf_sk_<publicId>_<secret>. publicId finds the row; the secret has
// 256 bits of randomness; only SHA-256 of the whole string is stored.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const FORMAT = /^ecf_sk_([A-Za-z0-9]{16})_([A-Za-z0-9]{43})$/;
const PUBLIC_ID_LENGTH = 16;
const SECRET_LENGTH = 43; // 43 base62 characters ≈ 256 bits

/** Uniform base62 from random bytes (rejection sampling avoids modulo bias). */
function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export interface NewApiKey {
  key: string;
  publicId: string;
  hash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const publicId = base62(PUBLIC_ID_LENGTH);
  const key = `ecf_sk_${publicId}_${base62(SECRET_LENGTH)}`;
  return { key, publicId, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  // One call instead of a Hash object per request (this runs on every API-key request). Hex
  // and back: Node 24's 'buffer' output of crypto.hash takes about 3 µs here, hex 0.9 and the
  // decoding 0.3.
  return Buffer.from(hash('sha256', key, 'hex'), 'hex');
}

/** The publicId of a well-formed key, or null. */
export function apiKeyPublicId(key: string): string | null {
  return FORMAT.exec(key)?.[1] ?? null;
}

/** What a listing shows instead of the key. */
export function maskApiKey(publicId: string): string {
  return `ecf_sk_${publicId}_…`;
}
