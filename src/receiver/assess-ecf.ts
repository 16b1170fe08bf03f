// What the receiver decides about an e-CF another taxpayer sent, before looking for
// duplicates: DGII's reasons for "no recibido" in the order they are checked (signature,
// specification, buyer). A document whose identifiers cannot be read cannot even be
// acknowledged, because the ARECF must name its emisor and eNCF.
//
// A valid signature proves nothing about the emisor unless the certificate is the emisor's:
// anyone with a certificate could otherwise issue e-CF in another taxpayer's name. So the
// signer's RNC (serialNumber, else CN, as describeCertificate reads it) must be RNCEmisor, and
// so must the holder of the certificate the sender authenticated with; otherwise motivo 2.
// And the signer's certificate must be one a trusted CA vouches for (signer-trust.ts), judged
// at reception: also motivo 2. FechaHoraFirma is the sender's own claim, so a certificate that
// has expired cannot be revived by writing an earlier date into the document.
import type { X509Certificate } from 'node:crypto';
import { certificateProblem, describeCertificate } from '../certificates/check.ts';
import { ecfXmlToObject, securityCode, validateEcfXml, type MotivoNoRecibido } from '../ecf/xml/index.ts';
import type { EcfObject } from '../ecf/types.ts';
import { isExchanged, tipoOfEncf } from '../ecf/exchange-rules.ts';
import { parseXml, textAt, verifyParsed, XmlError, type XmlDocument, type XmlElement } from '../xml/index.ts';
import type { SignerTrust, SignerVerdict } from './signer-trust.ts';

/** What an ARECF names; each value already fits the ARECF schema. */
export interface AcknowledgedIds {
  rncEmisor: string;
  rncComprador: string;
  encf: string;
}

export interface ReceivedEcf {
  tipo: number;
  encf: string;
  rncEmisor: string;
  razonSocialEmisor: string;
  rncComprador: string;
  /** yyyy-MM-dd */
  fechaEmision: string;
  montoTotal: string;
  securityCode: string;
  signerSubject: string;
  signerTrust: SignerTrust;
  ecf: EcfObject;
  xml: string;
}

export type Assessment =
  | { kind: 'unreadable'; message: string }
  | { kind: 'refused'; ids: AcknowledgedIds; motivo: Exclude<MotivoNoRecibido, 3>; detail: string }
  | { kind: 'acceptable'; ids: AcknowledgedIds; document: ReceivedEcf };

const PATHS = {
  tipo: ['Encabezado', 'IdDoc', 'TipoeCF'],
  encf: ['Encabezado', 'IdDoc', 'eNCF'],
  rncEmisor: ['Encabezado', 'Emisor', 'RNCEmisor'],
  razonSocialEmisor: ['Encabezado', 'Emisor', 'RazonSocialEmisor'],
  fechaEmision: ['Encabezado', 'Emisor', 'FechaEmision'],
  rncComprador: ['Encabezado', 'Comprador', 'RNCComprador'],
  montoTotal: ['Encabezado', 'Totales', 'MontoTotal'],
} as const;

// The ARECF's own simple types (arecf.xsd RNCType and eNCFType).
const RNC = /^(\d{9}|\d{11})$/;
const ENCF = /^([A-Za-z0-9]{13}|[A-Za-z0-9]{11}|[A-Za-z0-9]{9})$/;
const MAX_DETAIL_ERRORS = 5;

function leaf(root: XmlElement, path: readonly string[]): string {
  return (textAt(root, path) ?? '').trim();
}

/** dd-MM-yyyy (already checked by the schema) → yyyy-MM-dd. */
function isoDate(dgii: string): string {
  const [d, m, y] = dgii.split('-');
  return `${y}-${m}-${d}`;
}

function identifiers(root: XmlElement, tenantRnc: string): AcknowledgedIds | null {
  if (root.localName !== 'ECF' || root.namespaceURI !== '') return null;
  const rncEmisor = leaf(root, PATHS.rncEmisor);
  const encf = leaf(root, PATHS.encf);
  if (!RNC.test(rncEmisor) || !ENCF.test(encf)) return null;
  const comprador = leaf(root, PATHS.rncComprador);
  // Without a readable buyer RNC the acknowledgement names the tenant, the buyer it was sent to.
  return { rncEmisor, encf, rncComprador: RNC.test(comprador) ? comprador : tenantRnc };
}

/** The sender's identity problem for motivo 2, or null when signer and token holder are the emisor. */
function identityProblem(rncEmisor: string, signerId: string | null, senderHolderId: string | null): string | null {
  const who = (id: string | null) => (id === null ? 'un titular sin RNC ni cédula en el sujeto' : `RNC ${id}`);
  if (signerId !== rncEmisor) return `El certificado que firmó el e-CF es de ${who(signerId)}, no del RNCEmisor ${rncEmisor}`;
  if (senderHolderId !== rncEmisor) return `El remitente se autenticó con un certificado de ${who(senderHolderId)}, no del RNCEmisor ${rncEmisor}`;
  return null;
}

/** The signer's verdict, from its certificate, the others KeyInfo offers and the time it is judged at (reception). */
export type JudgeSigner = (leaf: X509Certificate, offered: readonly X509Certificate[], at: Date) => Promise<SignerVerdict>;

/**
 * Every input maps to one of the three outcomes; the only throw is the AppError of a signer
 * verdict that refuses all senders (see signer-trust.ts). `senderHolderId` is the RNC or
 * cédula of the certificate the sender's token was obtained with (null when it names none).
 */
export async function assessEcf(data: Buffer, tenantRnc: string, senderHolderId: string | null, now: Date, maxBytes: number, judge: JudgeSigner): Promise<Assessment> {
  // Parsed once: a document whose signature fails is still read for the identifiers its refusal
  // names.
  let doc: XmlDocument;
  try {
    doc = parseXml(data, { maxBytes });
  } catch (err) {
    const reason = err instanceof XmlError ? err.message : 'unreadable';
    return { kind: 'unreadable', message: `El archivo no es un XML aceptable: ${reason}` };
  }
  const verified = verifyParsed(doc);
  const ids = identifiers(doc.root, tenantRnc);
  if (ids === null) {
    return { kind: 'unreadable', message: 'El documento no es un e-CF (<ECF>) con RNCEmisor y eNCF legibles; no se puede emitir acuse de recibo' };
  }
  if (!verified.valid) return { kind: 'refused', ids, motivo: 2, detail: verified.reason };
  // Judged now, not at FechaHoraFirma: that date is whatever the sender wrote.
  const problem = certificateProblem(verified.certificate, now) ?? identityProblem(ids.rncEmisor, describeCertificate(verified.certificate).holderId, senderHolderId);
  if (problem !== null) return { kind: 'refused', ids, motivo: 2, detail: problem };
  const verdict = await judge(verified.certificate, verified.chain, now);
  if (verdict.kind === 'error') throw verdict.error;
  if (verdict.kind === 'refused') return { kind: 'refused', ids, motivo: 2, detail: `El certificado del firmante no es de confianza: ${verdict.reason}` };

  // DGII's v1.6 table: these types are not sent to another taxpayer; its receivers answer them
  // "no recibido" with motivo 1 (ecf/exchange-rules.ts). The eNCF names the type when TipoeCF is unreadable.
  const tipo = /^\d{2}$/.test(leaf(doc.root, PATHS.tipo)) ? Number(leaf(doc.root, PATHS.tipo)) : tipoOfEncf(ids.encf);
  if (tipo !== null && !isExchanged(tipo)) {
    return { kind: 'refused', ids, motivo: 1, detail: `El tipo de e-CF ${tipo} no se envía a otro contribuyente (Descripción técnica de facturación electrónica v1.6)` };
  }

  const errors = validateEcfXml(doc);
  if (errors.length > 0) {
    const detail = errors.slice(0, MAX_DETAIL_ERRORS).map((e) => `${e.path}: ${e.message}`).join('; ');
    return { kind: 'refused', ids, motivo: 1, detail };
  }
  const fechaEmision = leaf(doc.root, PATHS.fechaEmision);
  // The schema admits year 0000, which no calendar (nor PostgreSQL's date type) has.
  if (fechaEmision.endsWith('-0000')) return { kind: 'refused', ids, motivo: 1, detail: 'FechaEmision: el año 0000 no existe' };
  const rncComprador = leaf(doc.root, PATHS.rncComprador);
  if (rncComprador !== tenantRnc) {
    return { kind: 'refused', ids, motivo: 4, detail: `RNCComprador "${rncComprador}" no es el RNC ${tenantRnc} de este receptor` };
  }
  return {
    kind: 'acceptable',
    ids,
    document: {
      tipo: Number(leaf(doc.root, PATHS.tipo)),
      encf: ids.encf,
      rncEmisor: ids.rncEmisor,
      razonSocialEmisor: leaf(doc.root, PATHS.razonSocialEmisor),
      rncComprador,
      fechaEmision: isoDate(fechaEmision),
      montoTotal: leaf(doc.root, PATHS.montoTotal),
      securityCode: securityCode(verified.signatureValue),
      signerSubject: verified.certificate.subject.split('\n').join(', '),
      signerTrust: verdict.trust,
      ecf: ecfXmlToObject(doc.root),
      xml: data.toString('utf8'),
    },
  };
}
