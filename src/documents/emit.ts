import { randomUUID } from 'node:crypto';
import type { Queryable, Tx } from '../db/connect.ts';
import { ENCF_CONSTRAINT, SequenceExhaustedError, type SequenceBatcher } from './numbering.ts';
import { isCheckViolation, isUniqueViolation } from '../db/errors.ts';
import type { Environment } from '../environments.ts';
import { AppError, validationError } from '../errors.ts';
import { toDgiiDate } from '../ecf/encf.ts';
import { ECF_TYPES, isEcfTipo } from '../ecf/ecf-types.ts';
import type { EventOutbox } from '../events/outbox.ts';
import type { DocumentRow, NewDocument } from './queries.ts';
import { createdRow, type CreatedDocument } from './rows.ts';
import { BatchLoader, loaderPerOwner } from '../lib/batch-loader.ts';
import { storeCreated } from './transitions.ts';
import type { EcfDocument, EcfObject } from '../ecf/types.ts';
import { dgiiToIsoDate } from './views.ts';
import type { ErpReference } from './erp-reference.ts';

/**
 * The normalised ECF with eNCF placed right after TipoeCF, where the XSD wants it, and the
 * range's expiry as FechaVencimientoSecuencia when the body left it out (the XML builder
 * orders elements by the XSD). A body value that differs from the range's is 422.
 */
function withEncf(ecf: EcfObject, tipo: number, encf: string, fechaVencimiento: string | null): EcfObject {
  const encabezado = ecf.Encabezado as EcfObject;
  const sent = encabezado.IdDoc as EcfObject;
  const idDoc: Record<string, EcfObject[string]> = {};
  for (const k in sent) {
    if (k === 'eNCF') continue;
    idDoc[k] = sent[k] as EcfObject[string];
    if (k === 'TipoeCF') idDoc.eNCF = encf;
  }
  if (fechaVencimiento !== null) {
    const expected = toDgiiDate(fechaVencimiento);
    const given = idDoc.FechaVencimientoSecuencia;
    if (given !== undefined && given !== expected) {
      throw validationError([{ path: 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia', message: `must be ${expected}, the expiry of the registered range of ${encf} (or be left out)` }], 'The e-CF is not valid');
    }
    idDoc.FechaVencimientoSecuencia = expected;
  } else if (isEcfTipo(tipo) && ECF_TYPES[tipo].sequenceExpires && idDoc.FechaVencimientoSecuencia === undefined) {
    throw validationError([{ path: 'ECF.Encabezado.IdDoc.FechaVencimientoSecuencia', message: `is required: no registered range of type ${tipo} gives it (POST /{env}/secuencias)` }], 'The e-CF is not valid');
  }
  return { ...ecf, Encabezado: { ...encabezado, IdDoc: idDoc } };
}

/**
 * The documents a transaction writes together (an emit batch's, whose writes all start at once
 * when the batch has its numbers) go to the database as one statement (storeCreated), rather than
 * one each; at once, as the batch holds its sequence's lock until it commits.
 */
const writers = loaderPerOwner<Tx, NewDocument, string>();

/** Stores a document with the others of its transaction; answers its seq. */
function writerOf(tx: Tx, outbox: EventOutbox): BatchLoader<NewDocument, string> {
  return writers(tx, () => new BatchLoader(async (docs) => {
    const seqs = await storeCreated(tx, outbox, docs);
    return new Map(docs.map((d, i) => [d, seqs[i] as string]));
  }, MAX_WRITTEN_TOGETHER, 'microtasks'));
}

/** Documents in one statement at most (an emit batch holds up to 64). */
const MAX_WRITTEN_TOGETHER = 64;

/**
 * The credit note credits more than is left of its e-CF: another note against it was stored
 * between the emit's check and this one's insert (sql/0035_credit_note_limit.sql). A 422 like
 * the check's; its number was rolled back with it.
 */
function overCredited(err: unknown): void {
  if (!isCheckViolation(err, 'documents_credit_limit')) return;
  throw validationError([{ path: 'ECF.Encabezado.Totales.MontoTotal', message: (err as Error).message }], 'The e-CF is not valid');
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
 * own writes, such as the idempotent response, to it). `inTransaction` gets the row as it
 * will be stored (createdRow) and runs beside the insert, not after it: an emit batch holds its
 * sequence's lock until it commits, and its answers' statement then goes with its documents'
 * one rather than a round trip later.
 *
 * Numbering: with eNCF omitted the next number of the (tenant, environment, type)
 * ranges (or implicit sequence) is taken under their rows' locks, so concurrent emits queue on it and
 * a rolled-back emit gives its number back: no gaps, no duplicates (numbering.ts batches
 * them so they share commits). Numbers the tenant used explicitly are skipped. An
 * explicit eNCF already used is 409.
 */
export async function emitDocument(
  batcher: SequenceBatcher,
  outbox: EventOutbox,
  input: EmitInput,
  inTransaction: (tx: Queryable, doc: CreatedDocument) => Promise<void>,
): Promise<DocumentRow> {
  const { tenantId, environment, document } = input;
  const write = async (tx: Tx, encf: string, fechaVencimiento: string | null): Promise<DocumentRow> => {
    const created: NewDocument = {
      id: randomUUID(),
      tenantId,
      environment,
      tipo: document.tipo,
      encf,
      rncEmisor: document.RNCEmisor,
      rncComprador: document.RNCComprador ?? null,
      fechaEmision: dgiiToIsoDate(document.FechaEmision),
      montoTotal: document.MontoTotal,
      ecf: withEncf(document.ecf, document.tipo, encf, fechaVencimiento),
      referencia: input.erp?.referencia ?? null,
      metadata: input.erp?.metadata ?? null,
      createdAt: new Date(),
    };
    const row = createdRow(created);
    const [stored, own] = await Promise.allSettled([writerOf(tx, outbox).get(created), inTransaction(tx, row)]);
    // The insert's failure (a used eNCF) is the one that says why; the caller's writes then
    // fail only because the transaction is aborted.
    if (stored.status === 'rejected') throw stored.reason;
    if (own.status === 'rejected') throw own.reason;
    if (stored.value === undefined) throw new Error('a document of the batch was not stored');
    return { ...row, seq: stored.value };
  };
  const explicit = document.eNCF;
  if (explicit !== undefined) {
    try {
      return await batcher.runChosen({ tenantId, environment, tipo: document.tipo }, explicit, write);
    } catch (err) {
      overCredited(err);
      if (isUniqueViolation(err, ENCF_CONSTRAINT)) throw new AppError('ENCF_ALREADY_USED', `The eNCF ${explicit} was already used in ${environment}`);
      throw err;
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await batcher.run({ tenantId, environment, tipo: document.tipo }, write);
    } catch (err) {
      if (err instanceof SequenceExhaustedError) throw new AppError('SEQUENCE_EXHAUSTED', err.message);
      overCredited(err);
      // A number chosen while another emit stored it explicitly: the retry skips it.
      if (!isUniqueViolation(err, ENCF_CONSTRAINT) || attempt >= 3) throw err;
    }
  }
}
