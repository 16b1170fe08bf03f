import type { Queryable } from '../db/connect.ts';
import { PermanentAuthorityError } from '../dgii/authority.ts';
import { buildEcfTree, buildRfceXml, formatFechaHoraFirma, securityCode as securityCodeFrom, sentAsRfce, timbreUrl } from '../ecf/xml/index.ts';
import { NO_CERTIFICATE_MESSAGE } from '../dgii/protocol/client.ts';
import { signBuiltWithValue, signXml } from '../xml/index.ts';
import type { SigningCredential } from '../certificates/check.ts';
import type { DocumentRow } from './queries.ts';
import { type DocumentSignature, findSignedXml, type SignedXml, storeSignatures } from './signature-queries.ts';
import { isEcfTipo } from '../ecf/ecf-types.ts';
import type { EcfObject, EcfValue } from '../ecf/types.ts';
import { errorMessage } from '../errors.ts';

// A document is signed once, right before its first submission: FechaHoraFirma is the moment
// of signing, and the security code and timbre URL follow from the signature. The signed
// bytes are stored with the document, so a retry sends exactly what was signed.

export type CredentialsOf = (tenantId: number, now: Date) => Promise<SigningCredential | null>;

/** Stores a document's signature unless it has one; answers the XML it keeps (storeSignatures). */
export type SignatureStore = (id: string, signature: DocumentSignature) => Promise<SignedXml | undefined>;

/** A SignatureStore of one statement per signature. */
export function storeEach(sql: Queryable): SignatureStore {
  return async (id, signature) => (await storeSignatures(sql, [{ id, signature }])).get(id);
}

function leaf(ecf: EcfObject, path: readonly string[]): string {
  let node: EcfValue | undefined = ecf;
  for (const name of path) node = typeof node === 'object' && !Array.isArray(node) ? (node as EcfObject)[name] : undefined;
  if (typeof node !== 'string') throw new RangeError(`the stored e-CF has no ${path.join('/')}`);
  return node;
}

/** The signed e-CF (and RFCE for small type 32) of a stored document, with its security code and timbre URL. */
export async function signDocument(doc: DocumentRow, credential: SigningCredential, now: Date): Promise<DocumentSignature> {
  const { tipo } = doc;
  if (!isEcfTipo(tipo)) throw new RangeError(`unknown e-CF type ${tipo}`);
  const fechaHoraFirma = formatFechaHoraFirma(now);
  const sign = (xml: string): string => signXml(xml, credential.privateKey, credential.certificate, credential.chain);
  // The security code comes from the signature just made, not from parsing what was signed.
  const signed = await signBuiltWithValue(buildEcfTree(tipo, doc.ecf, fechaHoraFirma), credential.privateKey, credential.certificate, credential.chain);
  const signedXml = signed.xml;
  const securityCode = securityCodeFrom(signed.signatureValue);
  // The timbre carries the amount and date as the XML writes them.
  const montoTotal = leaf(doc.ecf, ['Encabezado', 'Totales', 'MontoTotal']);
  const rfce = sentAsRfce(tipo, montoTotal);
  return {
    signedXml,
    rfceXml: rfce ? sign(buildRfceXml(doc.ecf, securityCode)) : null,
    securityCode,
    fechaHoraFirma,
    timbreUrl: timbreUrl({
      environment: doc.environment,
      rfce,
      rncEmisor: doc.rncEmisor,
      rncComprador: doc.rncComprador,
      encf: doc.encf,
      fechaEmision: leaf(doc.ecf, ['Encabezado', 'Emisor', 'FechaEmision']),
      montoTotal,
      fechaFirma: fechaHoraFirma,
      codigoSeguridad: securityCode,
    }),
  };
}

/**
 * The document's signed XML: the stored one, or a new signature with the tenant's certificate,
 * stored before it is returned. No usable certificate, or a document that cannot be signed, is
 * a PermanentAuthorityError: waiting does not change either.
 */
export async function ensureSigned(sql: Queryable, credentials: CredentialsOf, doc: DocumentRow, now = new Date(), store: SignatureStore = storeEach(sql)): Promise<SignedXml> {
  if (doc.fechaHoraFirma !== null) {
    const stored = await findSignedXml(sql, doc.id);
    if (stored !== undefined) return stored;
  }
  const credential = await credentials(doc.tenantId, now);
  if (credential === null) throw new PermanentAuthorityError(NO_CERTIFICATE_MESSAGE);
  let signature: DocumentSignature;
  try {
    signature = await signDocument(doc, credential, now);
  } catch (err) {
    throw new PermanentAuthorityError(`The document could not be signed: ${errorMessage(err)}`);
  }
  const stored = await store(doc.id, signature);
  if (stored === undefined) throw new Error(`document ${doc.id} disappeared while it was being signed`);
  return stored;
}
