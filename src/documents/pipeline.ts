import type { Config } from '../config.ts';
import type { Sql } from '../db/connect.ts';
import { PermanentAuthorityError, type Submission, type SubmitResult, type TaxAuthority, type Verdict } from '../dgii/authority.ts';
import { securityCodeOf } from '../ecf/xml/index.ts';
import type { EventOutbox } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { JobPayloads } from '../queue/kinds.ts';
import type { JobContext, JobDefinition } from '../queue/runtime.ts';
import { findDocumentById, findDocumentsById, type DocumentRow } from './queries.ts';
import { storeSignatures, type DocumentSignature, type SignedXml } from './signature-queries.ts';
import { lostAnswers } from './lost-answers.ts';
import { type CredentialsOf, ensureSigned, type SignatureStore } from './signing.ts';
import { transitionsAlone, type Change } from './transitions.ts';
import { BatchLoader } from '../lib/batch-loader.ts';
import { buyerLegWith } from './buyer-delivery.ts';
import type { ReceiverDirectory } from '../dgii/directory.ts';
import { errorMessage } from '../errors.ts';
import type { MaintenanceWait } from '../dgii/status-monitor.ts';

// Background submission: `document.submit` signs a `recibido` document (once: retries resend
// the stored bytes), sends it and moves it to en_proceso (or straight to a verdict);
// `document.poll` asks for the status with a doubling interval until a verdict, or error
// after DGII_POLL_TIMEOUT_MS. A missing certificate is a permanent failure. Transient
// failures are thrown so the queue retries them with backoff; when the retry budget is
// spent the document becomes `error` with the last failure as its message.
//
// An upload can reach DGII and its answer (the trackId) be lost: the process dies, the
// connection drops. Sending the eNCF again would be refused as already used, so a run that may
// follow such an upload (a retry, or a document an earlier run signed) first asks DGII about the
// e-CF by its data (Consulta Estado: RNC, eNCF, buyer and the security code only our signature
// has; lost-answers.ts). A verdict DGII already reached is taken at once, with the reasons and
// trackId of the submission Consulta TrackIds lists; a document DGII is still processing is
// followed by that trackId; only an e-CF DGII does not know is uploaded. When DGII refuses
// Consulta Estado itself, Consulta TrackIds alone decides, as before it existed. A first run does
// not ask: nothing can have been sent yet. An RFCE has no trackId; its verdict comes in the
// upload's answer, so such a run asks Consulta RFCE and takes the verdict it finds.
//
// DGII answering "No encontrado" for a trackId it gave is not "En Proceso": it is tolerated
// for DGII_NOT_FOUND_TIMEOUT_MS (DGII may take a moment to index an upload), then DGII is asked
// about the e-CF by its data: its verdict is taken, a submission still in process is followed,
// and only when DGII knows nothing of it either does the document become error with DGII's
// message, instead of waiting out DGII_POLL_TIMEOUT_MS.
//
// While the document's environment is in a maintenance window DGII published ("Estatus
// Servicios", dgii/status-monitor.ts), neither job calls DGII: it is put off to the window's end
// (plus DGII_MAINTENANCE_MARGIN_MS) as a planned wait, which spends no attempt.

export interface PipelineDeps {
  sql: Sql;
  authority: TaxAuthority;
  /** The tenant's signing certificate (CertificateStore.credentials). */
  credentials: CredentialsOf;
  outbox: EventOutbox;
  /** DGII's directory of electronic receivers, for the buyer leg settled with the verdict. */
  directory: ReceiverDirectory;
  config: Config['authority'];
  log: Logger;
  /**
   * How long work bound for DGII in the environment must wait for a published maintenance window
   * to end (DgiiStatusMonitor.pauseFor); null: go ahead. Absent: never paused.
   */
  maintenanceWait?: MaintenanceWait;
}

/** The key of a document's poll job: it has one at a time. */
export const POLL_JOB_KEY_PREFIX = 'poll:';

export type PollPayload = JobPayloads['document.poll'];

function toSubmission(doc: DocumentRow, signed: SignedXml): Submission {
  return {
    signedXml: signed.signedXml,
    signedRfceXml: signed.rfceXml,
    documentId: doc.id, tenantId: doc.tenantId, environment: doc.environment, tipo: doc.tipo, encf: doc.encf,
    rncEmisor: doc.rncEmisor, rncComprador: doc.rncComprador, fechaEmision: doc.fechaEmision, montoTotal: doc.montoTotal, ecf: doc.ecf,
  };
}

function message(err: unknown): string {
  return errorMessage(err).slice(0, 1000);
}

export function documentJobs(deps: PipelineDeps): { 'document.submit': JobDefinition<'document.submit'>; 'document.poll': JobDefinition<'document.poll'> } {
  const { sql, authority, credentials, outbox, config, log } = deps;
  const lost = lostAnswers(authority);
  // The jobs of one claim start together: their documents are read with one statement, and the
  // signatures they make in the same turn stored with one.
  const documents = new BatchLoader<string, DocumentRow>((ids) => findDocumentsById(sql, ids));
  const signatures = new BatchLoader<{ id: string; signature: DocumentSignature }, SignedXml>(async (entries) => {
    const stored = await storeSignatures(sql, entries);
    return new Map(entries.flatMap((e) => {
      const kept = stored.get(e.id);
      return kept === undefined ? [] : [[e, kept] as const];
    }));
  });
  const store: SignatureStore = (id, signature) => signatures.get({ id, signature });
  // The state changes the jobs of a turn make (the answers DGII gave them, read together) are
  // written with one statement per tenant. Should that statement fail, each change is tried on
  // its own, so that one document's failure stays its own.
  const changes = new BatchLoader<Change, { moved: boolean } | { failed: unknown }>(async (batch) => {
    try {
      const moved = await transitionsAlone(sql, outbox, batch);
      return new Map(batch.map((c) => [c, { moved: moved.has(c.doc.id) }]));
    } catch (err) {
      if (batch.length === 1) throw err;
      return new Map(await Promise.all(batch.map(async (c) => {
        const outcome = await transitionsAlone(sql, outbox, [c]).then((m) => ({ moved: m.has(c.doc.id) }), (failed: unknown) => ({ failed }));
        return [c, outcome] as const;
      })));
    }
  });
  /**
   * Moves the document (with the others of the turn); false when it was no longer as read. The
   * jobs it schedules are the runtime's to claim when due (`ctx.scheduled`).
   */
  async function move(change: Change, ctx?: JobContext): Promise<boolean> {
    const outcome = await changes.get(change);
    if (outcome === undefined) return false;
    if ('failed' in outcome) throw outcome.failed;
    if (outcome.moved) for (const job of change.jobs ?? []) ctx?.scheduled(job.delayMs ?? 0);
    return outcome.moved;
  }

  /** The planned wait of a job whose document's environment is in a published window, or null. */
  function paused(doc: DocumentRow, ctx: JobContext): number | null {
    const wait = deps.maintenanceWait?.(doc.environment) ?? null;
    if (wait === null) return null;
    ctx.log.info('DGII is in a published maintenance window; waiting for it to end', { document: doc.id, environment: doc.environment, retryInMs: wait });
    return Math.max(1, wait);
  }

  /** The verdict, and what it settles of the buyer leg, in one statement. */
  async function finish(doc: DocumentRow, verdict: Verdict, trackId: string | null, ctx: JobContext): Promise<void> {
    const leg = buyerLegWith(doc, verdict.estado, deps.directory);
    const info = { trackId, dgiiCode: verdict.dgiiCode, dgiiMessage: verdict.dgiiMessage, secuenciaUtilizada: verdict.secuenciaUtilizada ?? null };
    if (leg.kind === 'no_aplica') await move({ doc, to: verdict.estado, info: { ...info, receptorNoAplica: leg.detalle } });
    else if (leg.kind === 'deliver') await move({ doc, to: verdict.estado, info, jobs: [leg.job] }, ctx);
    else await move({ doc, to: verdict.estado, info });
  }

  async function fail(documentId: string, dgiiCode: string | null, dgiiMessage: string): Promise<void> {
    const doc = await findDocumentById(sql, documentId);
    if (doc === undefined || (doc.estado !== 'recibido' && doc.estado !== 'en_proceso')) return;
    await move({ doc, to: 'error', info: { dgiiCode, dgiiMessage } });
    log.warn('document could not be processed', { document: doc.id, reason: dgiiMessage });
  }

  /** en_proceso with `trackId`, and its first status query scheduled, in one statement. */
  async function queued(doc: DocumentRow, trackId: string, ctx: JobContext): Promise<void> {
    const payload: PollPayload = { documentId: doc.id, trackId, since: Date.now(), interval: config.pollIntervalMs };
    const poll = { kind: 'document.poll' as const, payload, delayMs: config.pollIntervalMs, uniqueKey: POLL_JOB_KEY_PREFIX + doc.id };
    await move({ doc, to: 'en_proceso', info: { trackId, dgiiCode: null, dgiiMessage: null }, jobs: [poll] }, ctx);
  }

  /**
   * After an upload whose answer may be lost: true when DGII already holds the document and it
   * was taken up here (its verdict recorded, or its submission followed); false to upload it.
   */
  async function adoptEarlier(doc: DocumentRow, securityCode: string, startedAt: Date, ctx: JobContext): Promise<boolean> {
    const found = await lost.byData(doc, securityCode, startedAt, ctx);
    // Consulta Estado refused: the submissions of the eNCF decide alone.
    const earlier = found === null ? await lost.earlierSubmission(doc, startedAt, ctx) : null;
    const trackId = found?.kind === 'pending' ? found.trackId : earlier?.trackId;
    if (trackId !== undefined) {
      ctx.log.info('the authority already holds this document; following its submission', { document: doc.id, trackId });
      await queued(doc, trackId, ctx);
      return true;
    }
    if (found?.kind !== 'final') return false;
    ctx.log.info('the authority already holds this document and decided on it; taking its verdict', { document: doc.id, trackId: found.trackId, estado: found.verdict.estado });
    await finish(doc, found.verdict, found.trackId, ctx);
    return true;
  }

  const policy = { maxAttempts: config.submitMaxAttempts, backoffBaseMs: config.retryBaseMs, backoffMaxMs: config.retryMaxMs };

  return {
    'document.submit': {
      policy,
      async run(job, ctx) {
        const documentId = job.payload.documentId;
        const doc = await documents.get(documentId);
        if (doc === undefined || doc.estado !== 'recibido') return;
        const wait = paused(doc, ctx);
        if (wait !== null) return { retryIn: wait };
        // A retry may follow an upload whose answer was lost. So may a first attempt that finds
        // the document signed (signing is stored right before the first upload): a run given back
        // uncounted at shutdown got that far.
        const maySendAgain = job.attempts > 1 || doc.fechaHoraFirma !== null;
        const startedAt = new Date();
        let result: SubmitResult;
        try {
          const signed = await ensureSigned(sql, credentials, doc, new Date(), store);
          const code = maySendAgain ? (signed.securityCode ?? securityCodeOf(signed.signedXml)) : null;
          const decided = code !== null && signed.rfceXml !== null ? await lost.earlierSummary(doc, code, ctx) : null;
          if (decided !== null) {
            ctx.log.info('the authority already decided on this summary; taking its verdict', { document: doc.id, estado: decided.estado });
            await finish(doc, decided, null, ctx);
            return;
          }
          if (code !== null && signed.rfceXml === null && (await adoptEarlier(doc, code, startedAt, ctx))) return;
          result = await authority.submit(toSubmission(doc, signed), ctx.signal);
        } catch (err) {
          if (!(err instanceof PermanentAuthorityError)) throw err;
          await fail(doc.id, err.dgiiCode, err.message);
          return;
        }
        if (result.kind === 'final') {
          await finish(doc, result.verdict, result.trackId, ctx);
          return;
        }
        await queued(doc, result.trackId, ctx);
      },
      async exhausted(job, err) {
        await fail(job.payload.documentId, null, `Could not be sent after ${job.attempts} attempts: ${message(err)}`);
      },
    },
    'document.poll': {
      policy: { ...policy, maxAttempts: policy.maxAttempts * 2 },
      async run(job, ctx) {
        const p = job.payload;
        const doc = await documents.get(p.documentId);
        if (doc === undefined || doc.estado !== 'en_proceso') return;
        const wait = paused(doc, ctx);
        if (wait !== null) return { retryIn: wait };
        const status = await authority.status({ tenantId: doc.tenantId, environment: doc.environment, trackId: p.trackId }, ctx.signal);
        if (status.kind === 'final') {
          await finish(doc, status.verdict, p.trackId, ctx);
          return;
        }
        const now = Date.now();
        const notFoundSince = status.kind === 'not-found' ? (p.notFoundSince ?? now) : null;
        if (status.kind === 'not-found' && notFoundSince !== null && now - notFoundSince >= config.notFoundTimeoutMs) {
          const found = doc.securityCode === null ? null : await lost.byData(doc, doc.securityCode, new Date(p.since), ctx);
          if (found?.kind === 'final') {
            ctx.log.info('DGII does not find the trackId but knows the e-CF; taking its verdict', { document: doc.id, trackId: p.trackId, estado: found.verdict.estado });
            await finish(doc, found.verdict, found.trackId, ctx);
            return;
          }
          if (found?.kind === 'pending') {
            ctx.log.info('DGII does not find the trackId but is processing the e-CF; following its submission', { document: doc.id, trackId: found.trackId });
            return { retryIn: p.interval, payload: { documentId: p.documentId, trackId: found.trackId, since: p.since, interval: p.interval } };
          }
          const seconds = Math.round((now - notFoundSince) / 1000);
          await fail(doc.id, status.dgiiCode, `DGII does not find trackId ${p.trackId} (answered "No encontrado" for ${seconds} s): ${status.dgiiMessage}`);
          return;
        }
        if (now - p.since > config.pollTimeoutMs) {
          await fail(doc.id, null, `No verdict from the tax authority after ${Math.round(config.pollTimeoutMs / 60_000)} minutes (trackId ${p.trackId})`);
          return;
        }
        const next: PollPayload = { documentId: p.documentId, trackId: p.trackId, since: p.since, interval: Math.min(p.interval * 2, config.pollMaxIntervalMs) };
        if (notFoundSince !== null) next.notFoundSince = notFoundSince;
        return { retryIn: p.interval, payload: { ...next } };
      },
      async exhausted(job, err) {
        await fail(job.payload.documentId, null, `The status could not be obtained: ${message(err)}`);
      },
    },
  };
}
