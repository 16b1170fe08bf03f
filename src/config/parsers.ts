import type { X509Certificate } from 'node:crypto';
import { loadTrustBundle } from '../crypto/x509/trust-store.ts';
import { DGII_STATUS_BASE_URL, ENVIRONMENTS, type Environment } from '../environments.ts';
import type { Reader } from '../lib/env-reader.ts';

// The checks of the configuration's values that are more than a number, a word or a flag (URLs,
// the master key, the receiver's trust bundle), for src/config.ts, which declares the variables
// (parseDgiiUrls declares its per-environment ones where config.ts calls it, so the order of
// VARIABLES is config.ts's). Each reports a bad value to the reader, which collects them all for
// start-up to list at once. `nodeEnv` is NODE_ENV as config.ts read it: production is stricter.

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function parseMasterKey(r: Reader, value: string | null, nodeEnv: string): Buffer | null {
  if (value === null) {
    if (nodeEnv === 'production') r.problem('ECF_MASTER_KEY is required when NODE_ENV=production');
    return null;
  }
  const hex = /^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0;
  // Buffer.from(…, 'base64') skips characters it does not know: a mangled key would still
  // decode, to other bytes, and every token and sealed secret would silently stop opening.
  if (!hex && !BASE64.test(value) && !(BASE64URL.test(value) && value.length % 4 !== 1)) {
    r.problem('ECF_MASTER_KEY must be hex (an even number of 0-9a-f) or base64 (A-Z a-z 0-9 + / with = padding, or base64url); it holds other characters or bad padding');
    return null;
  }
  const bytes = Buffer.from(value, hex ? 'hex' : 'base64');
  if (bytes.length < 32) {
    r.problem('ECF_MASTER_KEY must hold at least 32 bytes (64 hex characters or 44 base64 characters)');
    return null;
  }
  return bytes;
}

export function parseDatabaseUrl(r: Reader, value: string | null): string | null {
  if (value === null || value === 'memory://') return value;
  try {
    const u = new URL(value);
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new Error('scheme');
  } catch {
    r.problem('DATABASE_URL must be a postgres:// or postgresql:// URL, or memory:// for an in-memory embedded database');
  }
  return value;
}

export function parsePublicUrl(r: Reader, value: string | null): string | null {
  if (value === null) return null;
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return value.replace(/\/+$/, '');
  } catch {
    r.problem('PUBLIC_URL must be an absolute http(s) URL');
    return null;
  }
}

// DGII's addresses can be overridden (a proxy, a test double); production only talks TLS.
export function parseDgiiUrls(r: Reader, nodeEnv: string, prefix: string, defaults: Readonly<Record<Environment, string>>, what: string): Record<Environment, string> {
  const urls = {} as Record<Environment, string>;
  for (const environment of ENVIRONMENTS) {
    const name = `${prefix}_${environment.toUpperCase()}`;
    const value = r.string(name, defaults[environment], `${what} in ${environment}; used with TAX_AUTHORITY=dgii. Must be https in production.`);
    urls[environment] = defaults[environment];
    try {
      const u = new URL(value);
      if (u.protocol !== 'https:' && (nodeEnv === 'production' || u.protocol !== 'http:')) throw new Error('scheme');
      urls[environment] = value.replace(/\/+$/, '');
    } catch {
      r.problem(`${name} must be an absolute ${nodeEnv === 'production' ? 'https' : 'http(s)'} URL (got "${value}")`);
    }
  }
  return urls;
}

export function parseStatusUrl(r: Reader, nodeEnv: string): string {
  const value = r.string('DGII_STATUS_URL', DGII_STATUS_BASE_URL, 'Base URL of DGII\'s "Estatus Servicios" (service status and maintenance windows, one host for every environment); used with TAX_AUTHORITY=dgii. Must be https in production.');
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:' && (nodeEnv === 'production' || u.protocol !== 'http:')) throw new Error('scheme');
    return value.replace(/\/+$/, '');
  } catch {
    r.problem(`DGII_STATUS_URL must be an absolute ${nodeEnv === 'production' ? 'https' : 'http(s)'} URL (got "${value}")`);
    return DGII_STATUS_BASE_URL;
  }
}

// A bad bundle is refused at start like any other bad value: running with fewer anchors
// than meant would refuse honest senders, and with a wrong file would trust the wrong CAs.
export function readTrustedCas(r: Reader, file: string | null): readonly X509Certificate[] | null {
  if (file === null) return null;
  try {
    return loadTrustBundle(file);
  } catch (e) {
    r.problem(`RECEIVER_TRUSTED_CA_FILE (${file}) is not a usable PEM bundle of CA certificates: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}
