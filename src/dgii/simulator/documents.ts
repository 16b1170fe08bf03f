import type { FieldError } from '../../errors.ts';
import { parseXml, textAt, textContent, verifyParsed, XmlError, type XmlDocument, type XmlElement } from '../../xml/index.ts';
import { securityCodeIn, validateEcfXml, validateRfceXml } from '../../ecf/xml/index.ts';
import { type Candidate, decide } from '../verdicts.ts';
import { fiscalRejections, readEcf, rememberAccepted } from './fiscal-checks.ts';
import type { Environment } from '../../environments.ts';
import type { FinalEstado } from '../../ecf/states.ts';
import type { SimulatorState, WireMessage } from './state.ts';

// What the simulated DGII checks in an uploaded document, in DGII's order: it must be XML,
// signed (enveloped XMLDSig, DGII profile) and valid against its XSD; then the business rules
// of verdicts.ts decide. A document that fails the signature or the schema is still received
// and rejected with a message naming the problem, as DGII does.

export type DocumentKind = 'ecf' | 'rfce';

const KINDS: Readonly<Record<DocumentKind, { validate: (doc: XmlDocument) => FieldError[] }>> = {
  ecf: { validate: validateEcfXml },
  rfce: { validate: validateRfceXml },
};

const PATHS = {
  rncEmisor: ['Encabezado', 'Emisor', 'RNCEmisor'],
  encf: ['Encabezado', 'IdDoc', 'eNCF'],
  fechaEmision: ['Encabezado', 'Emisor', 'FechaEmision'],
  securityCode: ['Encabezado', 'CodigoSeguridadeCF'],
} as const;

// The simulator's own message codes for its checks (verdicts.ts uses 0–5 and 8).
const REJECTIONS = {
  signature: { codigo: 6, valor: 'La firma digital del documento no es válida' },
  schema: { codigo: 7, valor: 'El documento no cumple con el esquema XSD' },
} as const;
const MAX_SCHEMA_MESSAGES = 20;

export const CODIGO_OF: Readonly<Record<FinalEstado, 1 | 2 | 4>> = { aceptado: 1, rechazado: 2, aceptado_condicional: 4 };

export interface ReceivedDocument {
  rncEmisor: string | null;
  encf: string | null;
  /**
   * The e-CF's security code: the one an RFCE carries, or that of an e-CF's own signature;
   * null when there is none to read.
   */
  securityCode: string | null;
  codigo: 1 | 2 | 4;
  mensajes: WireMessage[];
}

function leaf(root: XmlElement, path: readonly string[]): string | null {
  const value = textAt(root, path)?.trim();
  return value === undefined || value === '' ? null : value;
}

/** dd-MM-yyyy → yyyy-MM-dd; '' when it is not in that form (the schema check reports it). */
function isoDate(fecha: string | null): string {
  const m = fecha === null ? null : /^(\d{2})-(\d{2})-(\d{4})$/.exec(fecha);
  return m === null ? '' : `${m[3]}-${m[2]}-${m[1]}`;
}

/** The document's text outside the Signature, where test scenario markers are looked for. */
function notesOf(root: XmlElement): string {
  return root.children
    .filter((c): c is XmlElement => c.kind === 'element' && c.localName !== 'Signature')
    .map((c) => textContent(c))
    .join(' ');
}

/** Parses an upload; null with the reason when it is not XML the safe parser accepts. */
export function parseUpload(data: Buffer): { doc: XmlDocument; rncEmisor: string | null; encf: string | null } | { problem: string } {
  try {
    const doc = parseXml(data);
    return { doc, rncEmisor: leaf(doc.root, PATHS.rncEmisor), encf: leaf(doc.root, PATHS.encf) };
  } catch (err) {
    return { problem: err instanceof XmlError ? err.message : 'the document could not be read' };
  }
}

/** The security code of a signed e-CF's SignatureValue, or null when it has none. */
function signatureCode(doc: XmlDocument): string | null {
  try {
    return securityCodeIn(doc);
  } catch {
    return null;
  }
}

/** The verdict on a parsed upload; accepted eNCFs are recorded in the ledger. */
export function judge(kind: DocumentKind, doc: XmlDocument, environment: Environment, state: SimulatorState, now: number): ReceivedDocument {
  const rncEmisor = leaf(doc.root, PATHS.rncEmisor);
  const encf = leaf(doc.root, PATHS.encf);
  const securityCode = kind === 'rfce' ? leaf(doc.root, PATHS.securityCode) : signatureCode(doc);
  const reject = (mensajes: WireMessage[]): ReceivedDocument => ({ rncEmisor, encf, securityCode, codigo: 2, mensajes });

  // The upload as parseUpload read it (the default limits verifyXml would parse with).
  const verified = verifyParsed(doc);
  if (!verified.valid) return reject([{ codigo: REJECTIONS.signature.codigo, valor: `${REJECTIONS.signature.valor}: ${verified.reason}` }]);
  const errors = KINDS[kind].validate(verified.document);
  if (errors.length > 0) {
    return reject([
      { codigo: REJECTIONS.schema.codigo, valor: REJECTIONS.schema.valor },
      ...errors.slice(0, MAX_SCHEMA_MESSAGES).map((e) => ({ codigo: REJECTIONS.schema.codigo, valor: `${e.path}: ${e.message}` })),
    ]);
  }
  // DGII's rules beyond the XSD (fiscal-checks.ts): check digits, per-type rules, dates, notes.
  const reading = kind === 'ecf' ? readEcf(verified.document) : null;
  const fiscal = reading === null ? [] : fiscalRejections(reading, environment, state, now);
  if (fiscal.length > 0) return reject(fiscal.slice(0, MAX_SCHEMA_MESSAGES));
  // The schema guarantees both are present from here on.
  const candidate: Candidate = {
    environment,
    rncEmisor: rncEmisor ?? '',
    encf: encf ?? '',
    fechaEmision: isoDate(leaf(doc.root, PATHS.fechaEmision)),
    notes: notesOf(doc.root),
  };
  const verdict = decide(candidate, state, now);
  if (verdict.estado !== 'rechazado') {
    state.environments[environment].markAccepted(candidate.rncEmisor, candidate.encf);
    if (reading !== null) rememberAccepted(reading, environment, state);
  }
  const codigo = Number(verdict.dgiiCode);
  return {
    rncEmisor,
    encf,
    securityCode,
    codigo: CODIGO_OF[verdict.estado],
    mensajes: [{ codigo: Number.isFinite(codigo) ? codigo : 0, valor: verdict.dgiiMessage ?? '' }],
  };
}
