import type { Queryable } from '../db/connect.ts';

// A document's signature: what signing adds to it (documents/signing.ts), read back by every
// retry of its upload, by its buyer leg and its printout, and forgotten when it is resubmitted.

/** What signing adds to a document, stored in one statement. */
export interface DocumentSignature {
  signedXml: string;
  rfceXml: string | null;
  securityCode: string;
  timbreUrl: string;
  fechaHoraFirma: string;
}

export interface SignedXml {
  signedXml: string;
  rfceXml: string | null;
  /** From the signature, stored with it (null only on rows signed before it was stored). */
  securityCode: string | null;
}

/**
 * Stores each signature unless its document already has one (a concurrent worker signed it
 * first); either way answers the XML each document keeps, so every attempt sends the same bytes.
 * One statement for the documents signed together (and one more for any signed by someone else).
 */
export async function storeSignatures(sql: Queryable, entries: readonly { id: string; signature: DocumentSignature }[]): Promise<Map<string, SignedXml>> {
  // One JSON parameter: the signed XML is escaped once, natively, rather than as array elements.
  // The documents are found as `= any(array(select ...))`, through the primary key whatever the
  // plan: joined to the JSON set directly, the generic plan (a hundred rows estimated) read a
  // table of a few thousand documents whole (docs/architecture.md, "Plans made once").
  const input = entries.map(({ id, signature: s }) => ({ id, signed_xml: s.signedXml, rfce_xml: s.rfceXml, security_code: s.securityCode, timbre_url: s.timbreUrl, fecha_hora_firma: s.fechaHoraFirma }));
  // Only the ids come back: a stored signature is the one sent, and reading 8 KB of XML back
  // per document was work for the server and the driver. A document signed by someone else
  // meanwhile keeps its own, read below.
  const rows = await sql<{ id: string }[]>`
    with s as (
      select * from jsonb_to_recordset(${sql.json(input)}) as s(id uuid, signed_xml text, rfce_xml text, security_code text, timbre_url text, fecha_hora_firma text)
    )
    update documents d set signed_xml = s.signed_xml, rfce_xml = s.rfce_xml, security_code = s.security_code,
      timbre_url = s.timbre_url, fecha_hora_firma = s.fecha_hora_firma, updated_at = now()
    from s
    where d.id = any(array(select id from s)) and d.id = s.id and d.signed_xml is null
    returning d.id`;
  const written = new Set(rows.map((r) => r.id));
  // A document given twice got one of its two signatures: which one, only the row says.
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const { id } of entries) (seen.has(id) ? twice : seen).add(id);
  const stored = new Map<string, SignedXml>();
  for (const { id, signature: s } of entries) {
    if (written.has(id) && !twice.has(id)) stored.set(id, { signedXml: s.signedXml, rfceXml: s.rfceXml, securityCode: s.securityCode });
    else {
      const kept = await findSignedXml(sql, id);
      if (kept !== undefined) stored.set(id, kept);
    }
  }
  return stored;
}

/** The signed XML of a document, undefined while it has none. */
export async function findSignedXml(sql: Queryable, id: string): Promise<SignedXml | undefined> {
  const [row] = await sql<{ signedXml: string | null; rfceXml: string | null; securityCode: string | null }[]>`
    select signed_xml, rfce_xml, security_code from documents where id = ${id}`;
  if (row === undefined || row.signedXml === null) return undefined;
  return { signedXml: row.signedXml, rfceXml: row.rfceXml, securityCode: row.securityCode };
}

/** Forgets the signature of a document in error, so its resubmission is signed anew. */
export async function clearSignature(sql: Queryable, id: string): Promise<void> {
  await sql`
    update documents set signed_xml = null, rfce_xml = null, security_code = null, timbre_url = null, fecha_hora_firma = null, updated_at = now()
    where id = ${id}`;
}
