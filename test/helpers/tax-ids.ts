// RNCs and cédulas with DGII's check digits (src/ecf/tax-id.ts), for tests: the service refuses
// numbers whose check digit is wrong, so a test that makes one up computes it here.
import { randomInt } from 'node:crypto';
import { cedulaCheckDigit, rncCheckDigit } from '../../src/ecf/tax-id.ts';

/** A valid 9-digit RNC made from a seed: its first 8 digits are the seed's last 8 (zero-padded). */
export function validRnc(seed: number | string): string {
  const first8 = String(seed).replace(/\D/g, '').padStart(8, '0').slice(-8);
  return `${first8}${rncCheckDigit(first8)}`;
}

/** A valid 11-digit cédula made from a seed: its first 10 digits are the seed's last 10. */
export function validCedula(seed: number | string): string {
  const first10 = String(seed).replace(/\D/g, '').padStart(10, '0').slice(-10);
  return `${first10}${cedulaCheckDigit(first10)}`;
}

/** A random valid RNC, e.g. for a new tenant. */
export function randomRnc(): string {
  return validRnc(randomInt(10_000_000, 100_000_000));
}
