// RFC 7292 appendix B: the PKCS#12 key derivation used by the legacy PBE schemes and the MAC.
import * as crypto from 'node:crypto';
import { malformed } from './errors.ts';

export const KDF_PURPOSE = { KEY: 1, IV: 2, MAC: 3 } as const;
export type KdfPurpose = (typeof KDF_PURPOSE)[keyof typeof KDF_PURPOSE];

// Iteration counts come from the (untrusted) file. Real exporters use 1 to a few hundred thousand;
// the caps keep a hostile file from pinning the CPU, per derivation and across one file. Work is
// counted in PBKDF2-iteration units: one appendix-B round (a call from JS per hash) costs about
// four of them (about 1 µs against 0.25 µs), so a file's worst case stays near 1.5 s.
export const MAX_ITERATIONS = 1_000_000;
const MAX_TOTAL_WORK = 5_000_000;
export const KDF_COST = { PBKDF2: 1, APPENDIX_B: 4 } as const;

/** Counts key-derivation work spent on one file. */
export class WorkBudget {
  private remaining = MAX_TOTAL_WORK;

  spend(iterations: number, blocks: number, cost: number): void {
    if (iterations < 1 || iterations > MAX_ITERATIONS) {
      throw malformed(`iteration count ${iterations} outside 1..${MAX_ITERATIONS}`);
    }
    this.remaining -= iterations * blocks * cost;
    if (this.remaining < 0) throw malformed('the file demands too much key-derivation work');
  }
}

/** The password as a NUL-terminated BMPString (UTF-16BE), as appendix B.1 specifies. */
export function bmpPassword(password: string): Buffer {
  const utf16 = Buffer.from(password, 'utf16le').swap16();
  return Buffer.concat([utf16, Buffer.alloc(2)]);
}

/**
 * OpenSSL before 1.1.0 widened each UTF-8 byte to 16 bits instead of converting to UTF-16, so
 * files it wrote with non-ASCII passwords only open with this form.
 */
export function bytewiseBmpPassword(password: string): Buffer {
  const utf8 = Buffer.from(password, 'utf8');
  const out = Buffer.alloc(utf8.length * 2 + 2);
  utf8.forEach((b, i) => out.writeUInt8(b, i * 2 + 1));
  return out;
}

// The appendix-B loop is the hot spot; crypto.hash (Node >= 20.12) avoids a Hash object per round.
const digestOf: (hash: string, data: Buffer) => Buffer =
  typeof crypto.hash === 'function'
    ? (hash, data) => crypto.hash(hash, data, 'buffer')
    : (hash, data) => crypto.createHash(hash).update(data).digest();

function fillRepeated(source: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  if (source.length === 0) return out;
  for (let i = 0; i < length; i += source.length) source.copy(out, i, 0, Math.min(source.length, length - i));
  return out;
}

export interface KdfInput {
  hash: string;
  /** The hash's input block size `v` in bytes. */
  blockSize: number;
  /** Already in BMPString form. */
  password: Buffer;
  salt: Buffer;
  iterations: number;
  purpose: KdfPurpose;
  length: number;
}

export function pkcs12Kdf(input: KdfInput, budget: WorkBudget): Buffer {
  const { hash, blockSize: v, password, salt, iterations, purpose, length } = input;
  const hashLength = crypto.createHash(hash).digest().length;
  const blocks = Math.ceil(length / hashLength);
  budget.spend(iterations, blocks, KDF_COST.APPENDIX_B);

  const diversifier = Buffer.alloc(v, purpose);
  const I = Buffer.concat([
    fillRepeated(salt, v * Math.ceil(salt.length / v)),
    fillRepeated(password, v * Math.ceil(password.length / v)),
  ]);
  const output: Buffer[] = [];
  for (let block = 0; block < blocks; block++) {
    let A = digestOf(hash, Buffer.concat([diversifier, I]));
    for (let r = 1; r < iterations; r++) A = digestOf(hash, A);
    output.push(A);
    if (block === blocks - 1) break;
    // Each v-byte chunk of I becomes (chunk + B + 1) mod 2^(8v), big-endian.
    const B = fillRepeated(A, v);
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = (I[j + k] ?? 0) + (B[k] ?? 0) + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(output).subarray(0, length);
}
