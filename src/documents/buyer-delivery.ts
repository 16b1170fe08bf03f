import type { X509Certificate } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import { TransientAuthorityError } from '../dgii/authority.ts';
import { notListed, type ReceiverDirectory } from '../dgii/directory.ts';
import { documentFileName } from '../dgii/protocol/paths.ts';
import { errorMessage } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { ExchangeError } from '../exchange/egress.ts';
import type { FeClient } from '../exchange/fe-client.ts';
import { readArecf } from '../exchange/verify-arecf.ts';
import type { Logger } from '../log.ts';
import { scheduleKeyedJob, type NewJob } from '../queue/queries.ts';
import type { Estado } from '../ecf/states.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import { buyerLegApplies, deliversAfter } from './buyer-leg.ts';
import { type DocumentRow, findDocumentById } from './queries.ts';
import { findSignedXml } from './signature-queries.ts';
import { type ReceptorChange, reopenReceptor, updateReceptor } from './receptor-queries.ts';
import type { CredentialsOf } from './signing.ts';
import { receptorUpdatePayload } from './views.ts';

// The buyer leg (`exchange.deliver`): the buyer's URLs from DGII's directory, a token from the
// buyer's receiver with the tenant's certificate, the signed e-CF posted, and the ARECF it
// answers checked (the buyer's signature) and stored. The network, timeouts and 5xx are retried
// with backoff; a receiver that answers garbage or a badly signed ARECF, a refused destination,
// or a spent retry budget leave receptor.estado = error with the reason. The document and its
// DGII state are untouched whatever the buyer does.

/**
 * The receiver's trust policy (receiver/signer-trust.ts, handed in by app.ts): the same rule for
 * the buyer's ARECF as for every signature the service receives.
 */
export type SignerJudge = (
  environment: DocumentRow['environment'], leaf: X509Certificate, offered: readonly X509Certificate[], signedAt: Date,
) => Promise<{ kind: 'accepted'; trust: 'trusted' | 'untrusted' } | { kind: 'refused'; reason: string } | { kind: 'error'; error: Error & { code: string } }>;

export interface BuyerDeliveryDeps {
  sql: Sql;
  judgeSigner: SignerJudge;
  outbox: EventOutbox;
  directory: ReceiverDirectory;
  fe: FeClient;
  credentials: CredentialsOf;
  config: Config['exchange'];
  log: Logger;
}

/** A document has one buyer leg job at a time. */
const deliverKey = (documentId: string): string => `deliver:${documentId}`;

/** What a verdict's statement writes for the document's buyer leg (buyerLegWith). */
export type BuyerLegWrite =
  | { kind: 'none' }
  /** Its delivery job. */
  | { kind: 'deliver'; job: NewJob }
  /** receptor.estado no_aplica, with this detalle, and the ecf.receptor_update that says so. */
  | { kind: 'no_aplica'; detalle: string };

/**
 * The buyer leg after DGII's verdict, written by the verdict's own statement: queued when DGII
 * accepted the document, unless `directory` already knows, without asking DGII, that the buyer is
 * no electronic receiver: the leg is then no_aplica at once, as the job would have found it, and
 * no job runs (most buyers of a busy issuer are asked about once per DIRECTORY_CACHE_TTL_MS). When
 * DGII rejected one that would have gone to a buyer, the leg is no_aplica from now on. Either way
 * the issuer is told with an ecf.receptor_update.
 */
export function buyerLegWith(doc: DocumentRow, estado: Estado, directory: ReceiverDirectory): BuyerLegWrite {
  const rncComprador = doc.rncComprador;
  if (rncComprador === null || !buyerLegApplies(doc.tipo, rncComprador)) return { kind: 'none' };
  if (deliversAfter(estado)) {
    if (directory.peek(doc.environment, rncComprador) !== null) return { kind: 'deliver', job: { kind: 'exchange.deliver', payload: { documentId: doc.id }, uniqueKey: deliverKey(doc.id) } };
    return { kind: 'no_aplica', detalle: notListed(doc.environment, rncComprador) };
  }
  if (estado === 'rechazado') return { kind: 'no_aplica', detalle: 'DGII rejected the e-CF: it is not delivered to the buyer' };
  return { kind: 'none' };
}

/**
 * The user's re-delivery of a buyer leg that ended in error (POST …/receptor/reenviar), in the
 * caller's transaction: back to pendiente with its ecf.receptor_update, and the job queued with a
 * fresh retry budget. Undefined when the leg was not in error. The job of a spent budget is
 * deleted only after it recorded the error, so it may still exist: scheduleKeyedJob makes it due
 * again, or has the run that still holds it run once more.
 */
export async function redeliverToBuyer(tx: Queryable, outbox: EventOutbox, doc: DocumentRow): Promise<DocumentRow | undefined> {
  const reopened = await reopenReceptor(tx, doc.id, 'Delivery to the buyer requested again (POST …/receptor/reenviar)');
  if (reopened === undefined) return undefined;
  await outbox.record(tx, reopened.tenantId, 'ecf.receptor_update', receptorUpdatePayload(reopened), { sequence: reopened.eventSeq });
  await scheduleKeyedJob(tx, { kind: 'exchange.deliver', payload: { documentId: doc.id }, uniqueKey: deliverKey(doc.id) });
  return reopened;
}

const clip = (text: string): string => text.slice(0, 1000);

export function buyerDeliveryJob(deps: BuyerDeliveryDeps): JobDefinition<'exchange.deliver'> {
  const { sql, outbox, directory, fe, credentials, config, log, judgeSigner } = deps;

  async function record(documentId: string, change: ReceptorChange): Promise<void> {
    await sql.begin(async (tx) => {
      const updated = await updateReceptor(tx, documentId, { ...change, detalle: change.detalle === null ? null : clip(change.detalle) });
      if (updated !== undefined) await outbox.record(tx, updated.tenantId, 'ecf.receptor_update', receptorUpdatePayload(updated), { sequence: updated.eventSeq });
    });
    log.info('buyer leg recorded', { document: documentId, receptor: change.estado, detalle: change.detalle });
  }

  const error = (documentId: string, detalle: string) => record(documentId, { estado: 'error', motivo: null, detalle, arecfXml: null });

  return {
    policy: { maxAttempts: config.maxAttempts, backoffBaseMs: config.retryBaseMs, backoffMaxMs: config.retryMaxMs },
    async run(job, ctx) {
      const doc = await findDocumentById(sql, job.payload.documentId);
      if (doc === undefined || !deliversAfter(doc.estado) || doc.receptorEstado === 'recibido' || doc.receptorEstado === 'no_recibido') return;
      const rncComprador = doc.rncComprador;
      if (rncComprador === null || !buyerLegApplies(doc.tipo, rncComprador)) return;
      let entry;
      try {
        entry = await directory.lookup(doc.tenantId, doc.environment, rncComprador, ctx.signal);
      } catch (err) {
        if (err instanceof TransientAuthorityError) throw err;
        return error(doc.id, `DGII's directory could not be read: ${errorMessage(err)}`);
      }
      if (entry === null) {
        return record(doc.id, { estado: 'no_aplica', motivo: null, detalle: notListed(doc.environment, rncComprador), arecfXml: null });
      }
      const credential = await credentials(doc.tenantId, new Date());
      if (credential === null) return error(doc.id, 'No valid certificate to authenticate to the buyer\'s receiver: upload one with POST /api/certificates');
      const signed = await findSignedXml(sql, doc.id);
      if (signed === undefined) return error(doc.id, 'The document has no signed XML to deliver');
      let answer: string;
      try {
        answer = await fe.sendEcf(entry, credential, documentFileName(doc.rncEmisor, doc.encf), signed.signedXml, ctx.signal);
      } catch (err) {
        if (err instanceof ExchangeError && !err.transient) return error(doc.id, err.message);
        throw err;
      }
      const arecf = readArecf(answer, { rncEmisor: doc.rncEmisor, rncComprador, encf: doc.encf }, new Date());
      if (!arecf.ok) return error(doc.id, arecf.reason);
      const verdict = await judgeSigner(doc.environment, arecf.certificate, arecf.chain, new Date());
      if (verdict.kind === 'refused') return error(doc.id, `the buyer's ARECF is signed by a certificate no trusted CA vouches for: ${verdict.reason}`);
      if (verdict.kind === 'error') {
        // Revocation unknown in eCF: try again later rather than take or drop the answer.
        if (verdict.error.code === 'CERTIFICATE_REVOCATION_UNKNOWN') throw verdict.error;
        return error(doc.id, verdict.error.message);
      }
      const untrusted = verdict.trust === 'untrusted' ? 'The ARECF\'s signer could not be verified against a trusted CA (RECEIVER_TRUSTED_CA_FILE)' : null;
      if (arecf.estado === 0) return record(doc.id, { estado: 'recibido', motivo: null, detalle: untrusted, arecfXml: answer });
      return record(doc.id, { estado: 'no_recibido', motivo: arecf.motivo, detalle: `The buyer answered ARECF Estado 1 (CodigoMotivoNoRecibido ${arecf.motivo ?? '?'})`, arecfXml: answer });
    },
    async exhausted(job, err) {
      await error(job.payload.documentId, `Could not be delivered to the buyer after ${job.attempts} attempts: ${clip(errorMessage(err))}`);
    },
  };
}
