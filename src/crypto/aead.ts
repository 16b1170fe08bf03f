import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// AES-256-GCM for secrets the service must read back (webhook secrets, signing keys).
// Layout: version byte | 12-byte IV | 16-byte tag | ciphertext. `context` is bound as
// additional data so a ciphertext copied to another row or tenant does not decrypt.
const VERSION = 1;

export function seal(key: Buffer, plaintext: Buffer, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

export function open(key: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < 29 || sealed[0] !== VERSION) throw new Error('sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(sealed.subarray(13, 29));
  return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
}
