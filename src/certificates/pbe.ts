// Password-based decryption for the two families PKCS#12 files use: PBES2 (RFC 8018) and the
// legacy PKCS#12 PBE schemes (RFC 7292 appendix C) keyed through the appendix-B KDF.
import { type Decipheriv, createDecipheriv, getCiphers, pbkdf2Sync } from 'node:crypto';
import { type DerNode, TAG, isUniversal, readOctets, readOid, readUint, sequence } from '../crypto/der.ts';
import { Pkcs12Error, malformed } from './errors.ts';
import { KNOWN_UNSUPPORTED, OID } from './oids.ts';
import { KDF_COST, KDF_PURPOSE, MAX_ITERATIONS, type WorkBudget, pkcs12Kdf } from './pkcs12-kdf.ts';

/** The password in the two byte forms the schemes need. */
export interface PasswordForms {
  /** PBES2 (OpenSSL's behaviour): the UTF-8 bytes. */
  utf8: Buffer;
  /** Legacy PBE and MAC: a NUL-terminated BMPString. */
  bmp: Buffer;
}

// Works with Debian 12's OpenSSL 3.0: the second command cannot read the PEM from a pipe because
// it reads its input twice (key, then certificates), hence the temporary file.
export const LEGACY_REEXPORT_STEPS = [
  'openssl pkcs12 -legacy -in old.p12 -nodes -out old.pem',
  'openssl pkcs12 -export -in old.pem -out new.p12',
  'rm old.pem',
] as const;

interface CipherSpec {
  readonly name: string;
  readonly cipher: string;
  readonly keyLength: number;
  /** Also the block size of the CBC ciphers; 0 for the stream cipher RC4. */
  readonly ivLength: number;
}

const PKCS12_PBE: Readonly<Record<string, CipherSpec>> = {
  '1.2.840.113549.1.12.1.1': { name: 'pbeWithSHAAnd128BitRC4', cipher: 'rc4', keyLength: 16, ivLength: 0 },
  '1.2.840.113549.1.12.1.2': { name: 'pbeWithSHAAnd40BitRC4', cipher: 'rc4-40', keyLength: 5, ivLength: 0 },
  '1.2.840.113549.1.12.1.3': {
    name: 'pbeWithSHAAnd3-KeyTripleDES-CBC', cipher: 'des-ede3-cbc', keyLength: 24, ivLength: 8,
  },
  '1.2.840.113549.1.12.1.4': {
    name: 'pbeWithSHAAnd2-KeyTripleDES-CBC', cipher: 'des-ede-cbc', keyLength: 16, ivLength: 8,
  },
  '1.2.840.113549.1.12.1.5': { name: 'pbeWithSHAAnd128BitRC2-CBC', cipher: 'rc2-cbc', keyLength: 16, ivLength: 8 },
  '1.2.840.113549.1.12.1.6': { name: 'pbeWithSHAAnd40BitRC2-CBC', cipher: 'rc2-40-cbc', keyLength: 5, ivLength: 8 },
};

const PBES2_CIPHERS: Readonly<Record<string, CipherSpec>> = {
  '2.16.840.1.101.3.4.1.2': { name: 'AES-128-CBC', cipher: 'aes-128-cbc', keyLength: 16, ivLength: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'AES-192-CBC', cipher: 'aes-192-cbc', keyLength: 24, ivLength: 16 },
  '2.16.840.1.101.3.4.1.42': { name: 'AES-256-CBC', cipher: 'aes-256-cbc', keyLength: 32, ivLength: 16 },
  '1.2.840.113549.3.7': { name: 'DES-EDE3-CBC', cipher: 'des-ede3-cbc', keyLength: 24, ivLength: 8 },
  '1.3.14.3.2.7': { name: 'DES-CBC', cipher: 'des-cbc', keyLength: 8, ivLength: 8 },
};

const PBKDF2_PRFS: Readonly<Record<string, { hash: string; size: number }>> = {
  '1.2.840.113549.2.7': { hash: 'sha1', size: 20 },
  '1.2.840.113549.2.8': { hash: 'sha224', size: 28 },
  '1.2.840.113549.2.9': { hash: 'sha256', size: 32 },
  '1.2.840.113549.2.10': { hash: 'sha384', size: 48 },
  '1.2.840.113549.2.11': { hash: 'sha512', size: 64 },
  '1.2.840.113549.2.12': { hash: 'sha512-224', size: 28 },
  '1.2.840.113549.2.13': { hash: 'sha512-256', size: 32 },
};
const DEFAULT_PRF = '1.2.840.113549.2.7';

export function unsupported(oid: string, role: string): Pkcs12Error {
  const known = KNOWN_UNSUPPORTED[oid];
  return new Pkcs12Error('UNSUPPORTED_ALGORITHM', `Unsupported ${role}: ${known ?? 'OID ' + oid}.`);
}

function missingCipher(spec: CipherSpec): Pkcs12Error {
  return new Pkcs12Error(
    'UNSUPPORTED_ALGORITHM',
    `It uses ${spec.name}, an obsolete cipher that is not available here. Re-export the file with ` +
      `modern encryption using OpenSSL 3 (it asks for the current password, then for the new one): ` +
      `${LEGACY_REEXPORT_STEPS.join(' && ')}`,
  );
}

let runtimeCiphers: ReadonlySet<string> | undefined;

function decipher(spec: CipherSpec, key: Buffer, iv: Buffer | null, data: Buffer): Buffer {
  runtimeCiphers ??= new Set(getCiphers());
  if (!runtimeCiphers.has(spec.cipher)) throw missingCipher(spec);
  if (spec.ivLength > 0 && (data.length === 0 || data.length % spec.ivLength !== 0)) {
    throw malformed(`${spec.name} ciphertext is not a whole number of blocks`);
  }
  let d: Decipheriv;
  try {
    d = createDecipheriv(spec.cipher, key, iv);
  } catch {
    throw missingCipher(spec);
  }
  try {
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    // Bad CBC padding: with overwhelming likelihood the key, i.e. the password, is wrong.
    throw new Pkcs12Error('BAD_PASSWORD');
  }
}

function decryptPkcs12Pbe(
  spec: CipherSpec,
  params: DerNode | undefined,
  data: Buffer,
  pw: PasswordForms,
  budget: WorkBudget,
): Buffer {
  const p = sequence(params, `${spec.name} parameters`, 2);
  const salt = readOctets(p[0], 'PBE salt');
  const iterations = readUint(p[1], 'PBE iteration count', MAX_ITERATIONS);
  const base = { hash: 'sha1', blockSize: 64, password: pw.bmp, salt, iterations };
  const key = pkcs12Kdf({ ...base, purpose: KDF_PURPOSE.KEY, length: spec.keyLength }, budget);
  const iv =
    spec.ivLength === 0 ? null : pkcs12Kdf({ ...base, purpose: KDF_PURPOSE.IV, length: spec.ivLength }, budget);
  return decipher(spec, key, iv, data);
}

function decryptPbes2(params: DerNode | undefined, data: Buffer, pw: PasswordForms, budget: WorkBudget): Buffer {
  const [kdfAlg, encAlg] = sequence(params, 'PBES2 parameters', 2);
  const kdf = sequence(kdfAlg, 'PBES2 key derivation function', 1);
  const kdfOid = readOid(kdf[0], 'PBES2 key derivation function');
  if (kdfOid !== OID.pbkdf2) throw unsupported(kdfOid, 'key derivation function');

  const kp = sequence(kdf[1], 'PBKDF2 parameters', 2);
  if (!isUniversal(kp[0], TAG.OCTET_STRING)) {
    throw new Pkcs12Error('UNSUPPORTED_ALGORITHM', 'Unsupported PBKDF2 salt source.');
  }
  const salt = readOctets(kp[0], 'PBKDF2 salt');
  const iterations = readUint(kp[1], 'PBKDF2 iteration count', MAX_ITERATIONS);
  let rest = kp.slice(2);
  const keyLengthNode = isUniversal(rest[0], TAG.INTEGER) ? rest[0] : undefined;
  if (keyLengthNode !== undefined) rest = rest.slice(1);
  let prfOid: string = DEFAULT_PRF;
  if (rest[0] !== undefined) prfOid = readOid(sequence(rest[0], 'PBKDF2 PRF', 1)[0], 'PBKDF2 PRF');
  const prf = PBKDF2_PRFS[prfOid];
  if (prf === undefined) throw unsupported(prfOid, 'PBKDF2 pseudo-random function');

  const enc = sequence(encAlg, 'PBES2 encryption scheme', 1);
  const encOid = readOid(enc[0], 'PBES2 encryption scheme');
  const spec = PBES2_CIPHERS[encOid];
  if (spec === undefined) throw unsupported(encOid, 'PBES2 encryption scheme');
  if (keyLengthNode !== undefined && readUint(keyLengthNode, 'PBKDF2 key length', 1024) !== spec.keyLength) {
    throw malformed(`PBKDF2 key length does not match ${spec.name}`);
  }
  const iv = readOctets(enc[1], `${spec.name} IV`);
  if (iv.length !== spec.ivLength) throw malformed(`${spec.name} IV has the wrong length`);

  budget.spend(iterations, Math.ceil(spec.keyLength / prf.size), KDF_COST.PBKDF2);
  const key = pbkdf2Sync(pw.utf8, salt, iterations, spec.keyLength, prf.hash);
  return decipher(spec, key, iv, data);
}

/**
 * Decrypts `data` under an AlgorithmIdentifier. Throws BAD_PASSWORD on a padding failure,
 * UNSUPPORTED_ALGORITHM for schemes or ciphers this runtime lacks, MALFORMED for bad parameters.
 */
export function pbeDecrypt(
  algorithm: DerNode | undefined,
  data: Buffer,
  pw: PasswordForms,
  budget: WorkBudget,
): Buffer {
  const alg = sequence(algorithm, 'encryption algorithm', 1);
  const oid = readOid(alg[0], 'encryption algorithm');
  if (oid === OID.pbes2) return decryptPbes2(alg[1], data, pw, budget);
  const legacy = PKCS12_PBE[oid];
  if (legacy !== undefined) return decryptPkcs12Pbe(legacy, alg[1], data, pw, budget);
  throw unsupported(oid, 'encryption algorithm');
}

export interface PbeContext {
  /** Password forms to try, best first: one after a MAC check settled it, several otherwise. */
  readonly passwords: readonly PasswordForms[];
  /** Whether the MAC proved the password; if not, undecodable plaintext means a wrong password. */
  readonly macVerified: boolean;
  readonly budget: WorkBudget;
}

/** Decrypts and interprets the plaintext, trying each password form in turn. */
export function decryptThen<T>(
  ctx: PbeContext,
  algorithm: DerNode | undefined,
  data: Buffer,
  interpret: (plain: Buffer) => T,
): T {
  for (const pw of ctx.passwords) {
    let plain: Buffer;
    try {
      plain = pbeDecrypt(algorithm, data, pw, ctx.budget);
    } catch (e) {
      if (e instanceof Pkcs12Error && e.code === 'BAD_PASSWORD') continue;
      throw e;
    }
    try {
      return interpret(plain);
    } catch (e) {
      // Without a MAC, a wrong password shows up as plaintext that happened to pad correctly
      // (about 1 in 256 for CBC, always for RC4) but is not the expected structure.
      if (ctx.macVerified) throw e;
    }
  }
  throw new Pkcs12Error('BAD_PASSWORD');
}
