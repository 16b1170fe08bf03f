import {
  PermanentAuthorityError, type PriorSubmission, type StatusResult, type TaxAuthority, TransientAuthorityError, UnpublishedServiceError, type Verdict,
} from '../dgii/authority.ts';
import { parseDgiiDateTime } from '../ecf/xml/index.ts';
import type { JobContext } from '../queue/runtime.ts';
import type { DocumentRow } from './queries.ts';

// What DGII already holds of a document whose upload's answer may have been lost (the process
// died, the connection dropped): sending the eNCF again would be refused as already used, so
// the pipeline asks first. The e-CF by its data (Consulta Estado, with the security code only
// this document's signature has), then its submissions by eNCF (Consulta TrackIds) for the
// trackId to follow and DGII's reasons; a summary (RFCE) by Consulta RFCE. Transient failures
// of these queries are thrown (the job is retried); DGII refusing a query itself is reported as
// null, and the caller goes on as it would have without it.

/** What DGII holds of an e-CF found by its data. */
export type Found =
  /** Nothing under this eNCF with this security code: it never arrived, send it. */
  | { kind: 'unknown' }
  /** DGII decided: its verdict, with its reasons when the submission's status gave them. */
  | { kind: 'final'; verdict: Verdict; trackId: string | null }
  /** DGII is still processing the submission with this trackId. */
  | { kind: 'pending'; trackId: string };

/** Submissions received this long before the document was signed are still taken as its own (clocks differ). */
const CLOCK_SKEW_MS = 10 * 60_000;

/**
 * The latest submission that can be this document's: one received before the document was
 * signed is another document under the same eNCF (issued elsewhere), which must not be adopted.
 */
export function latestOwn(found: PriorSubmission[], signedAt: Date): PriorSubmission | null {
  const own = found.filter((s) => s.receivedAt === null || s.receivedAt.getTime() >= signedAt.getTime() - CLOCK_SKEW_MS);
  return own.at(-1) ?? null;
}

/** The document's signing time; a document unsigned when the run began was signed by it, just now. */
function signedAtOf(doc: DocumentRow, startedAt: Date): Date {
  return (doc.fechaHoraFirma === null ? null : parseDgiiDateTime(doc.fechaHoraFirma)) ?? startedAt;
}

/** Runs a query; DGII refusing it is logged and answered null, anything else thrown. */
async function unlessRefused<T>(ctx: JobContext, doc: DocumentRow, what: string, query: () => Promise<T>): Promise<T | null> {
  try {
    return await query();
  } catch (err) {
    if (!(err instanceof PermanentAuthorityError)) throw err;
    // CerteCF publishes neither Consulta Estado nor Consulta TrackIds: expected, not a warning.
    if (err instanceof UnpublishedServiceError) return null;
    ctx.log.warn(`the authority refused ${what}; going on without it`, { document: doc.id, error: err.message });
    return null;
  }
}

export interface LostAnswers {
  /** The e-CF by its data (null: DGII refused Consulta Estado). */
  byData(doc: DocumentRow, securityCode: string, startedAt: Date, ctx: JobContext): Promise<Found | null>;
  /** The latest submission of the eNCF that can be this document's, or null (none, or the query refused). */
  earlierSubmission(doc: DocumentRow, startedAt: Date, ctx: JobContext): Promise<PriorSubmission | null>;
  /** DGII's verdict on the summary, or null when it has none (or refuses the query). */
  earlierSummary(doc: DocumentRow, securityCode: string, ctx: JobContext): Promise<Verdict | null>;
}

export function lostAnswers(authority: TaxAuthority): LostAnswers {
  const key = (doc: DocumentRow) => ({ tenantId: doc.tenantId, environment: doc.environment, rncEmisor: doc.rncEmisor, encf: doc.encf });

  async function earlierSubmission(doc: DocumentRow, startedAt: Date, ctx: JobContext): Promise<PriorSubmission | null> {
    const found = await unlessRefused(ctx, doc, 'the query for earlier submissions', () => authority.findSubmissions(key(doc), ctx.signal));
    return found === null ? null : latestOwn(found, signedAtOf(doc, startedAt));
  }

  return {
    earlierSubmission,

    async byData(doc, securityCode, startedAt, ctx) {
      const query = { ...key(doc), rncComprador: doc.rncComprador, securityCode };
      const state = await unlessRefused(ctx, doc, 'Consulta Estado', () => authority.ecfStatus(query, ctx.signal));
      if (state === null) return null;
      if (state.kind === 'not-found') return { kind: 'unknown' };
      const own = await earlierSubmission(doc, startedAt, ctx);
      if (state.kind === 'pending') {
        // DGII may list a submission a moment after it reports it: asked again on the retry.
        if (own === null) throw new TransientAuthorityError(`DGII has ${doc.encf} "${state.dgiiMessage ?? 'En Proceso'}" but lists no submission of it to follow`);
        return { kind: 'pending', trackId: own.trackId };
      }
      // Consulta Estado names the state only; the submission's status has DGII's reasons.
      if (own !== null) {
        const status = await unlessRefused(ctx, doc, 'the status query', () => authority.status({ tenantId: doc.tenantId, environment: doc.environment, trackId: own.trackId }, ctx.signal));
        if (status?.kind === 'final' && status.verdict.estado === state.verdict.estado) return { kind: 'final', verdict: status.verdict, trackId: own.trackId };
      }
      return { kind: 'final', verdict: state.verdict, trackId: own?.trackId ?? null };
    },

    async earlierSummary(doc, securityCode, ctx) {
      const status: StatusResult | null = await unlessRefused(ctx, doc, 'the query for an earlier summary', () => authority.summaryStatus({ ...key(doc), securityCode }, ctx.signal));
      if (status === null) return null;
      if (status.kind === 'final') return status.verdict;
      // A summary is decided on arrival; "En Proceso" is a state to wait out, not to send over.
      if (status.kind === 'pending') throw new TransientAuthorityError(`DGII answered "${status.dgiiMessage ?? 'En Proceso'}" about the summary of ${doc.encf}`);
      return null;
    },
  };
}
