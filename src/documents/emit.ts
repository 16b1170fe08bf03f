import { randomUUID } from 'node:crypto';
import type { Queryable, Sql, Tx } from '../db/connect.ts';
import { SequenceExhaustedError, type SequenceBatcher } from './numbering.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { insertJob } from '../queue/queries.ts';
import { insertDocument, type DocumentRow } from './queries.ts';
import { recordCreation } from './transitions.ts';
import type { EcfDocument, EcfObject } from '../ecf/types.ts';
import { dgiiToIsoDate } from './views.ts';
import type { ErpReference } from './erp-reference.ts';

const ENCF_CONSTRAINT = 'documents_encf_key';

/** The normalised ECF with eNCF placed right after TipoeCF, where the XSD wants it. */
function withEncf(ecf: EcfObject, encf: string): EcfObject {
  const encabezado = ecf.Encabezado as EcfObject;
  const idDoc: Record<string, EcfObject[string]> = {};
  for (const [k, v] of Object.entries(encabezado.IdDoc as EcfObject)) {
    if (k === 'eNCF') continue;
    idDoc[k] = v;
    if (k === 'TipoeCF') idDoc.eNCF = encf;
  }
  return { ...ecf, Encabezado: { ...encabezado, IdDoc: idDoc } };
}

export interface EmitInput {
  tenantId: number;
  environment: Environment;
  document: EcfDocument;
  erp?: ErpReference;
}

/**
 * Stores a validated document as `recibido` with its first history entry, its event and
 * its submission job, all in one transaction (`inTransaction` lets the caller add its
 * own writes, such as the idempotent response, to it).
 *
 * Numbering: with eNCF omitted the next number of the (tenant, environment, type)
 * sequence is taken under that sequence row's lock, so concurrent emits queue on it and
 * a rolled-back emit gives its number back: no gaps, no duplicates (numbering.ts batches
 * them so they share commits). Numbers the tenant used explicitly are skipped. An
 * explicit eNCF already used is 409.
 */
export async function emitDocument(
  sql: Sql,
  batcher: SequenceBatcher,
  outbox: EventOutbox,
  input: EmitInput,
  inTransaction: (tx: Queryable, doc: DocumentRow) => Promise<void>,
): Promise<DocumentRow> {
  const { tenantId, environment, document } = input;
  const write = async (tx: Tx, encf: string): Promise<DocumentRow> => {
    const doc = await insertDocument(tx, {
      id: randomUUID(),
      tenantId,
      environment,
      tipo: document.tipo,
      encf,
      rncEmisor: document.RNCEmisor,
      rncComprador: document.RNCComprador ?? null,
      fechaEmision: dgiiToIsoDate(document.FechaEmision),
      montoTotal: document.MontoTotal,
      ecf: withEncf(document.ecf, encf),
      referencia: input.erp?.referencia ?? null,
      metadata: input.erp?.metadata ?? null,
    });
    // Independent writes go out together: the driver pipelines them on the connection.
    await Promise.all([
      recordCreation(tx, outbox, doc),
      insertJob(tx, { kind: 'document.submit', payload: { documentId: doc.id } }),
      inTransaction(tx, doc),
    ]);
    return doc;
  };
  const explicit = document.eNCF;
  if (explicit !== undefined) {
    try {
      return await sql.begin((tx) => write(tx, explicit));
    } catch (err) {
      if (isUniqueViolation(err, ENCF_CONSTRAINT)) throw new AppError('ENCF_ALREADY_USED', `The eNCF ${explicit} was already used in ${environment}`);
      throw err;
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await batcher.run({ tenantId, environment, tipo: document.tipo }, write);
    } catch (err) {
      if (err instanceof SequenceExhaustedError) throw new AppError('CONFLICT', err.message);
      // A number chosen while another emit stored it explicitly: the retry skips it.
      if (!isUniqueViolation(err, ENCF_CONSTRAINT) || attempt >= 3) throw err;
    }
  }
}
