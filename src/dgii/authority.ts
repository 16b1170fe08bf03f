import type { Environment } from '../environments.ts';
import type { EcfObject } from '../documents/validation/types.ts';
import type { FinalEstado } from '../documents/states.ts';

// The port through which documents reach the tax authority. Adapters: the simulated
// authority (in process) and, later, the DGII HTTP protocol client.

export interface Submission {
  documentId: string;
  /** The signed e-CF XML, built and signed once by the pipeline and resent as is on retries. */
  signedXml: string;
  /** For type 32 under RD$250,000: the signed RFCE summary, sent instead of the e-CF. */
  signedRfceXml: string | null;
  tenantId: number;
  environment: Environment;
  tipo: number;
  encf: string;
  rncEmisor: string;
  rncComprador: string | null;
  /** yyyy-MM-dd */
  fechaEmision: string;
  montoTotal: string;
  ecf: EcfObject;
}

export interface Verdict {
  estado: FinalEstado;
  dgiiCode: string | null;
  dgiiMessage: string | null;
}

/** `queued`: the authority took the document and will decide later; `final`: it decided at once. */
export type SubmitResult = { kind: 'queued'; trackId: string } | { kind: 'final'; trackId: string | null; verdict: Verdict };

export type StatusResult = { kind: 'pending'; dgiiMessage: string | null } | { kind: 'not-found' } | { kind: 'final'; verdict: Verdict };

export interface StatusQuery {
  tenantId: number;
  environment: Environment;
  trackId: string;
}

export interface TaxAuthority {
  submit(submission: Submission, signal: AbortSignal): Promise<SubmitResult>;
  status(query: StatusQuery, signal: AbortSignal): Promise<StatusResult>;
}

/** Worth retrying later: network failure, timeout, 5xx. */
export class TransientAuthorityError extends Error {
  override name = 'TransientAuthorityError';
}

/** Retrying cannot help (no valid certificate, the authority refused the request itself). */
export class PermanentAuthorityError extends Error {
  override name = 'PermanentAuthorityError';
  constructor(
    message: string,
    readonly dgiiCode: string | null = null,
  ) {
    super(message);
  }
}
