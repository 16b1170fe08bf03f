// RFC 7292 §4 / appendix B: the password-integrity MAC over the authenticated safe. Checked before
// any decryption so that a wrong password is reported as such rather than as a corrupt file.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type DerNode, readOctets, readOid, readUint, sequence } from '../crypto/der.ts';
import { Pkcs12Error, malformed } from './errors.ts';
import { DIGESTS } from './oids.ts';
import { type PasswordForms, unsupported } from './pbe.ts';
import { KDF_PURPOSE, MAX_ITERATIONS, type WorkBudget, pkcs12Kdf } from './pkcs12-kdf.ts';

/** Returns the password form the MAC was made with; throws BAD_PASSWORD when none matches. */
export function verifyMac(
  macData: DerNode,
  authSafe: Buffer,
  candidates: readonly PasswordForms[],
  budget: WorkBudget,
): PasswordForms {
  const m = sequence(macData, 'MacData', 2);
  const digestInfo = sequence(m[0], 'MAC DigestInfo', 2);
  const algOid = readOid(sequence(digestInfo[0], 'MAC algorithm', 1)[0], 'MAC algorithm');
  const digest = DIGESTS[algOid];
  if (digest === undefined) throw unsupported(algOid, 'MAC algorithm');
  const expected = readOctets(digestInfo[1], 'MAC value');
  const salt = readOctets(m[1], 'MAC salt');
  const iterations = m[2] === undefined ? 1 : readUint(m[2], 'MAC iteration count', MAX_ITERATIONS);

  if (expected.length !== digest.size) throw malformed('MAC value has the wrong length');

  for (const pw of candidates) {
    const kdf = { hash: digest.name, blockSize: digest.blockSize, salt, iterations };
    const key = pkcs12Kdf({ ...kdf, password: pw.bmp, purpose: KDF_PURPOSE.MAC, length: digest.size }, budget);
    const actual = createHmac(digest.name, key).update(authSafe).digest();
    if (timingSafeEqual(actual, expected)) return pw;
  }
  throw new Pkcs12Error('BAD_PASSWORD');
}
