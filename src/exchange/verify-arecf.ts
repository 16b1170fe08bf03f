// The ARECF a buyer's receiver answers: it only counts when the buyer signed it. signatureProblem
// below judges the certificate itself; whether a trusted CA vouches for it (RECEIVER_TRUSTED_CA_FILE)
// is judged by the same policy as every signature the receiver takes, handed to the delivery job.
import type { X509Certificate } from 'node:crypto';
import { certificateProblem, describeCertificate } from '../certificates/check.ts';
import { validateArecfXml } from '../ecf/xml/index.ts';
import { textAt, verifyXml, type XmlDocument } from '../xml/index.ts';

export interface ExpectedArecf {
  rncEmisor: string;
  rncComprador: string;
  encf: string;
}

export type ArecfReading =
  | { ok: true; estado: 0 | 1; motivo: string | null; signer: string; certificate: X509Certificate; chain: readonly X509Certificate[] }
  | { ok: false; reason: string };

const MAX_ARECF_BYTES = 256 * 1024;

/**
 * Why a verified signature does not speak for the buyer, or null when it does: the certificate
 * must be valid now and be the buyer's (its RNC or cédula is RNCComprador).
 */
export function signatureProblem(certificate: X509Certificate, rncComprador: string, now: Date): string | null {
  const problem = certificateProblem(certificate, now);
  if (problem !== null) return problem;
  const holder = describeCertificate(certificate).holderId;
  if (holder !== rncComprador) return `the ARECF was signed by ${holder === null ? 'a holder without RNC or cédula' : `RNC ${holder}`}, not by the buyer ${rncComprador}`;
  return null;
}

function leaf(doc: XmlDocument, name: string): string {
  return (textAt(doc.root, ['DetalleAcusedeRecibo', name]) ?? '').trim();
}

/** Reads and checks the buyer's answer; never throws. */
export function readArecf(answer: string, expected: ExpectedArecf, now: Date): ArecfReading {
  if (answer.trim() === '') return { ok: false, reason: 'the buyer answered with an empty body instead of an ARECF' };
  const verified = verifyXml(answer, { maxBytes: MAX_ARECF_BYTES });
  if (!verified.valid) return { ok: false, reason: `the buyer's ARECF is not validly signed: ${verified.reason}` };
  const doc = verified.document;
  if (doc.root.localName !== 'ARECF') return { ok: false, reason: `the buyer answered <${doc.root.localName}>, not an ARECF` };
  const problem = signatureProblem(verified.certificate, expected.rncComprador, now);
  if (problem !== null) return { ok: false, reason: problem };
  const errors = validateArecfXml(doc);
  if (errors.length > 0) return { ok: false, reason: `the buyer's ARECF does not follow arecf.xsd: ${errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join('; ')}` };
  for (const [name, value] of [['RNCEmisor', expected.rncEmisor], ['RNCComprador', expected.rncComprador], ['eNCF', expected.encf]] as const) {
    if (leaf(doc, name) !== value) return { ok: false, reason: `the buyer's ARECF names ${name} ${leaf(doc, name)}, not ${value}` };
  }
  const estado = leaf(doc, 'Estado') === '1' ? 1 : 0;
  const motivo = leaf(doc, 'CodigoMotivoNoRecibido');
  return { ok: true, estado, motivo: motivo === '' ? null : motivo, signer: verified.certificate.subject.split('\n').join(', '), certificate: verified.certificate, chain: verified.chain };
}
