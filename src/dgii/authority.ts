import type { Environment } from '../environments.ts';
import type { IssuedEcf } from '../ecf/types.ts';
import type { FinalEstado } from '../ecf/states.ts';

// The port through which documents reach the tax authority. One adapter: DGII's HTTP protocol
// (protocol/dgii-authority.ts), spoken to DGII itself or to the simulator (tax-authority.ts).

export interface Submission extends IssuedEcf {
  documentId: string;
  /** The signed e-CF XML, built and signed once by the pipeline and resent as is on retries. */
  signedXml: string;
  /** For type 32 under RD$250,000: the signed RFCE summary, sent instead of the e-CF. */
  signedRfceXml: string | null;
}

export interface Verdict {
  estado: FinalEstado;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  /** DGII's secuenciaUtilizada: whether the eNCF counts as used; absent or null when it did not say. */
  secuenciaUtilizada?: boolean | null;
}

/** `queued`: the authority took the document and will decide later; `final`: it decided at once. */
export type SubmitResult = { kind: 'queued'; trackId: string } | { kind: 'final'; trackId: string | null; verdict: Verdict };

/** `not-found`: the authority holds nothing under what was asked, with its own words for it. */
export type StatusResult =
  | { kind: 'pending'; dgiiMessage: string | null }
  | { kind: 'not-found'; dgiiCode: string | null; dgiiMessage: string }
  | { kind: 'final'; verdict: Verdict };

export interface StatusQuery {
  tenantId: number;
  environment: Environment;
  trackId: string;
}

export interface SubmissionsQuery {
  tenantId: number;
  environment: Environment;
  rncEmisor: string;
  encf: string;
}

/** A summary (RFCE) sent for this eNCF, found by the security code of the e-CF it summarises. */
export interface SummaryQuery extends SubmissionsQuery {
  securityCode: string;
}

/**
 * An e-CF found by its data ("Consulta Estado"): the security code of its signature tells this
 * document from another one issued under the same eNCF elsewhere.
 */
export interface EcfStatusQuery extends SummaryQuery {
  rncComprador: string | null;
}

/** An upload of an eNCF the authority already holds, whatever became of it. */
export interface PriorSubmission {
  trackId: string;
  /** When the authority received it; null when it did not say in a form we read. */
  receivedAt: Date | null;
  /** The authority's word on it ("Aceptado", "En Proceso", ...), as sent; for logs only. */
  estado: string | null;
}

/** A signed ANECF to send. */
export interface AnnulmentSubmission {
  tenantId: number;
  environment: Environment;
  rncEmisor: string;
  /** The first number annulled, which names the upload. */
  firstEncf: string;
  signedXml: string;
}

/** DGII's answer to an annulment: it decides at once. */
export interface AnnulmentVerdict {
  estado: 'aceptado' | 'rechazado';
  dgiiCode: string | null;
  dgiiMessage: string | null;
}

export interface TaxAuthority {
  /** Sends an ANECF; an answer that is neither acceptance nor rejection is a PermanentAuthorityError. */
  annul(annulment: AnnulmentSubmission, signal: AbortSignal): Promise<AnnulmentVerdict>;
  submit(submission: Submission, signal: AbortSignal): Promise<SubmitResult>;
  status(query: StatusQuery, signal: AbortSignal): Promise<StatusResult>;
  /**
   * The submissions of the emisor's eNCF the authority holds, oldest first; empty when it has
   * none. An upload whose answer was lost (the process died, the connection dropped) is found
   * here by its trackId instead of being sent again, which the authority would refuse as a
   * reused eNCF.
   */
  findSubmissions(query: SubmissionsQuery, signal: AbortSignal): Promise<PriorSubmission[]>;
  /**
   * The verdict on a summary (RFCE) already sent, or not-found. A summary gets its verdict in
   * the answer to the upload and no trackId, so when that answer is lost this is the only way
   * to learn it without sending the eNCF again.
   */
  summaryStatus(query: SummaryQuery, signal: AbortSignal): Promise<StatusResult>;
  /**
   * The state of an e-CF by its data rather than a trackId: pending, final (with the state's
   * name as the message: DGII gives no reasons here) or not-found. How a submission whose
   * answer was lost is learned about without uploading the eNCF again.
   */
  ecfStatus(query: EcfStatusQuery, signal: AbortSignal): Promise<StatusResult>;
}

/** Worth retrying later: network failure, timeout, 5xx. */
export class TransientAuthorityError extends Error {
  override name = 'TransientAuthorityError';
}

/** Retrying cannot help (no valid certificate, the authority refused the request itself). */
export class PermanentAuthorityError extends Error {
  override name = 'PermanentAuthorityError';
  readonly dgiiCode: string | null;

  constructor(message: string, dgiiCode: string | null = null) {
    super(message);
    this.dgiiCode = dgiiCode;
  }
}

/** DGII publishes no such service in the environment (CerteCF's withdrawn URLs): nothing was sent. */
export class UnpublishedServiceError extends PermanentAuthorityError {
  override name = 'UnpublishedServiceError';
}
