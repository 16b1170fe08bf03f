// A commercial approval (ACECF) is what the buyer of an e-CF sends its issuer (and DGII)
// to accept or reject it commercially. Arriving at a tenant's receiver, it concerns an
// e-CF the tenant issued: it must be signed, valid against DGII's schema, name the tenant
// as RNCEmisor, and agree with the issued document on buyer, date and amount. Only the buyer
// speaks for the buyer: the signing certificate's RNC must be the RNCComprador it names, and
// (judged by the service, signer-trust.ts) a trusted CA must vouch for that certificate.
import type { X509Certificate } from 'node:crypto';
import { certificateProblem, describeCertificate } from '../certificates/check.ts';
import { validateAcecfXml } from '../ecf/xml/index.ts';
import { compare, parseDecimal } from '../ecf/decimal.ts';
import { textAt, verifyXml, type XmlElement } from '../xml/index.ts';
import type { IssuedDocument } from './queries.ts';

export interface Approval {
  rncEmisor: string;
  encf: string;
  /** As written: d-M-yyyy with or without leading zeros. */
  fechaEmision: string;
  montoTotal: string;
  rncComprador: string;
  estado: 1 | 2;
  detalleMotivoRechazo: string | null;
  fechaHoraAprobacion: string;
  xml: string;
}

const DETALLE = ['DetalleAprobacionComercial'];
const MAX_DETAIL_ERRORS = 5;

function leaf(root: XmlElement, name: string): string {
  return (textAt(root, [...DETALLE, name]) ?? '').trim();
}

/** Whose certificate signed it, and the others its KeyInfo offers as issuers. */
export interface ApprovalSigner {
  certificate: X509Certificate;
  chain: readonly X509Certificate[];
}

/** The ACECF read and checked on its own; a message for the sender when it is refused. Never throws. */
export function assessAcecf(data: Buffer, now: Date, maxBytes: number): { approval: Approval; signer: ApprovalSigner } | { problem: string } {
  const verified = verifyXml(data, { maxBytes });
  if (!verified.valid) return { problem: `La firma de la aprobación comercial no es válida: ${verified.reason}` };
  const certificate = certificateProblem(verified.certificate, now);
  if (certificate !== null) return { problem: certificate };
  const errors = validateAcecfXml(verified.document);
  if (errors.length > 0) {
    return { problem: `La aprobación comercial no cumple con el esquema ACECF: ${errors.slice(0, MAX_DETAIL_ERRORS).map((e) => `${e.path}: ${e.message}`).join('; ')}` };
  }
  const root = verified.document.root;
  const rncComprador = leaf(root, 'RNCComprador');
  const signer = describeCertificate(verified.certificate).holderId;
  if (signer !== rncComprador) {
    return { problem: `El certificado que firmó la aprobación comercial es ${signer === null ? 'de un titular sin RNC ni cédula' : `del RNC ${signer}`}, no del RNCComprador ${rncComprador}` };
  }
  const detalle = leaf(root, 'DetalleMotivoRechazo');
  return {
    approval: {
      rncEmisor: leaf(root, 'RNCEmisor'),
      encf: leaf(root, 'eNCF'),
      fechaEmision: leaf(root, 'FechaEmision'),
      montoTotal: leaf(root, 'MontoTotal'),
      rncComprador,
      estado: leaf(root, 'Estado') === '2' ? 2 : 1,
      detalleMotivoRechazo: detalle === '' ? null : detalle,
      fechaHoraAprobacion: leaf(root, 'FechaHoraAprobacionComercial'),
      xml: data.toString('utf8'),
    },
    signer: { certificate: verified.certificate, chain: verified.chain },
  };
}

function sameDate(written: string, iso: string): boolean {
  const [d, m, y] = written.split('-').map(Number);
  const [iy, im, id] = iso.split('-').map(Number);
  return d === id && m === im && y === iy;
}

function sameAmount(a: string, b: string): boolean {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return x !== undefined && y !== undefined && compare(x, y) === 0;
}

/** Why the approval does not describe the issued document, or null when it does. */
export function mismatch(approval: Approval, issued: IssuedDocument): string | null {
  if (issued.rncComprador !== approval.rncComprador) {
    return `El e-CF ${approval.encf} no fue emitido al RNCComprador ${approval.rncComprador}`;
  }
  if (!sameDate(approval.fechaEmision, issued.fechaEmision)) return `La FechaEmision no coincide con la del e-CF ${approval.encf}`;
  if (!sameAmount(approval.montoTotal, issued.montoTotal)) return `El MontoTotal no coincide con el del e-CF ${approval.encf}`;
  return null;
}
