import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.ts';

// Every key the service uses is derived from one master secret with HKDF-SHA256 and a
// distinct purpose label, so rotating the master secret rotates them all and no key
// is ever used for two purposes.
export const KEY_PURPOSES = ['jwt-signing', 'webhook-secrets', 'certificates'] as const;
export type KeyPurpose = (typeof KEY_PURPOSES)[number];

export type DerivedKeys = Readonly<Record<KeyPurpose, Buffer>>;

export function deriveKeys(master: Buffer): DerivedKeys {
  const entries = KEY_PURPOSES.map((purpose) => [
    purpose,
    Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `ecf-service/${purpose}/v1`, 32)),
  ]);
  return Object.freeze(Object.fromEntries(entries)) as DerivedKeys;
}

/**
 * A value that identifies the master key without revealing it: an HMAC under a key derived
 * for this purpose alone. The database stores it at the first start (src/db/key-check.ts).
 */
export function masterKeyCheckValue(master: Buffer): Buffer {
  const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'ecf-service/key-check/v1', 32));
  return createHmac('sha256', key).update('ecf-service master key check').digest();
}

/**
 * The configured master key, or in development one generated once under DATA_DIR
 * (mode 0600) so that tokens and encrypted secrets survive restarts.
 */
export async function loadMasterKey(config: { masterKey: Buffer | null; dataDir: string }, log: Logger): Promise<Buffer> {
  if (config.masterKey !== null) return config.masterKey;
  const file = join(config.dataDir, 'master.key');
  try {
    const text = (await readFile(file, 'utf8')).trim();
    const key = Buffer.from(text, 'hex');
    if (key.length >= 32) return key;
    throw new Error(`${file} does not hold a 32-byte hex key`);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  await writeFile(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  log.warn('generated a development master key; set ECF_MASTER_KEY in production', { file });
  return key;
}
