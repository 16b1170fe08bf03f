// Trust anchors: the certification authorities whose certificates (directly or through
// intermediates) may sign what the service receives. DGII publishes the providers it
// authorises; their CA certificates, concatenated in PEM, make the bundle.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basicConstraints, readCertificateFields } from './certificate-fields.ts';

/** More than any real list of national CAs; bounds the work of path building. */
export const MAX_ANCHORS = 500;

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \1-----/g;

export class TrustBundleError extends Error {
  override readonly name = 'TrustBundleError';
}

/**
 * The CA certificates of a PEM bundle, in file order and without repeats. Text between the
 * blocks (comments some bundles carry) is ignored; any block that is not a readable CA
 * certificate makes the whole bundle unusable, since a silently dropped anchor would refuse
 * its senders and a silently kept leaf would be a trust anchor nobody meant.
 */
export function parseTrustBundle(pem: string): X509Certificate[] {
  const anchors: X509Certificate[] = [];
  const seen = new Set<string>();
  let index = 0;
  for (const [, label, body] of pem.matchAll(BLOCK)) {
    index++;
    if (label !== 'CERTIFICATE') throw new TrustBundleError(`block ${index} is a ${label ?? 'block'}, not a CERTIFICATE`);
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(Buffer.from((body ?? '').replace(/\s+/g, ''), 'base64'));
    } catch {
      throw new TrustBundleError(`certificate ${index} cannot be read`);
    }
    let ca: boolean;
    try {
      ca = basicConstraints(readCertificateFields(cert)).ca;
    } catch (e) {
      throw new TrustBundleError(`certificate ${index} (${oneLine(cert.subject)}) is malformed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!ca) throw new TrustBundleError(`certificate ${index} (${oneLine(cert.subject)}) is not a CA certificate (BasicConstraints cA is not set)`);
    if (seen.has(cert.fingerprint256)) continue;
    seen.add(cert.fingerprint256);
    anchors.push(cert);
    if (anchors.length > MAX_ANCHORS) throw new TrustBundleError(`more than ${MAX_ANCHORS} certificates`);
  }
  if (anchors.length === 0) throw new TrustBundleError('no PEM certificate (-----BEGIN CERTIFICATE-----) found');
  return anchors;
}

/** parseTrustBundle of a file; TrustBundleError when it cannot be read either. */
export function loadTrustBundle(file: string): X509Certificate[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new TrustBundleError(`cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return parseTrustBundle(text);
}

export function oneLine(name: string): string {
  return name.split('\n').join(', ');
}
