// The security code and the "timbre" URL printed as a QR code on the printed e-CF.
// DGII's public verification pages (Descripción Técnica de Facturación Electrónica, section on
// the printed representation): ecf.dgii.gov.do/{env}/ConsultaTimbre for e-CF and
// fc.dgii.gov.do/{env}/ConsultaTimbreFC for consumer invoices summarised as RFCE.
import { childElement, elementChildren, parseXml, textContent, XMLDSIG, type XmlDocument } from '../../xml/index.ts';
import type { Environment } from '../../environments.ts';

const SECURITY_CODE_LENGTH = 6;
const BASE64 = /^[A-Za-z0-9+/]+=*$/;

/** DGII's CodigoSeguridad: the first six characters of the Base64 SignatureValue, as written. */
export function securityCode(signatureValue: string): string {
  const compact = signatureValue.replace(/[\t\n\r ]/g, '');
  if (compact.length < SECURITY_CODE_LENGTH || !BASE64.test(compact)) {
    throw new RangeError('the SignatureValue must be Base64 of at least six characters');
  }
  return compact.slice(0, SECURITY_CODE_LENGTH);
}

/** The security code of a signed document (its root's last child is the XML-DSig Signature). */
export function securityCodeOf(signedXml: string): string {
  return securityCodeIn(parseXml(signedXml));
}

/** securityCodeOf of a document already parsed. */
export function securityCodeIn(doc: XmlDocument): string {
  const root = doc.root;
  const signature = elementChildren(root).at(-1);
  const value = signature !== undefined && signature.localName === 'Signature' && signature.namespaceURI === XMLDSIG.namespace
    ? childElement(signature, 'SignatureValue', XMLDSIG.namespace)
    : undefined;
  if (value === undefined) throw new RangeError('the document has no XML-DSig SignatureValue');
  return securityCode(textContent(value));
}

export interface TimbreParams {
  readonly environment: Environment;
  /** A type 32 under RD$250,000 sent as RFCE: DGII verifies it on its consumer-invoice page. */
  readonly rfce: boolean;
  readonly rncEmisor: string;
  /** Left out of the URL when null (no buyer RNC: consumers, types 43 and 47). */
  readonly rncComprador: string | null;
  readonly encf: string;
  /** dd-MM-yyyy */
  readonly fechaEmision: string;
  /** As written in the XML. */
  readonly montoTotal: string;
  /** dd-MM-yyyy HH:mm:ss: the document's FechaHoraFirma. */
  readonly fechaFirma: string;
  readonly codigoSeguridad: string;
}

const TIMBRE_PAGES = {
  ecf: { host: 'ecf.dgii.gov.do', page: 'ConsultaTimbre' },
  rfce: { host: 'fc.dgii.gov.do', page: 'ConsultaTimbreFC' },
} as const;

/** The verification URL; every value is percent-encoded (the code may hold + / =, the date a space). */
export function timbreUrl(p: TimbreParams): string {
  const { host, page } = TIMBRE_PAGES[p.rfce ? 'rfce' : 'ecf'];
  const query: [string, string | null][] = p.rfce
    ? [['RncEmisor', p.rncEmisor], ['ENCF', p.encf], ['MontoTotal', p.montoTotal], ['CodigoSeguridad', p.codigoSeguridad]]
    : [
      ['RncEmisor', p.rncEmisor],
      ['RncComprador', p.rncComprador],
      ['ENCF', p.encf],
      ['FechaEmision', p.fechaEmision],
      ['MontoTotal', p.montoTotal],
      ['FechaFirma', p.fechaFirma],
      ['CodigoSeguridad', p.codigoSeguridad],
    ];
  const search = query
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return `https://${host}/${p.environment.toLowerCase()}/${page}?${search}`;
}
