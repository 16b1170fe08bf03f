// Every kind of background job, with its payload and its retry policy: the single table the
// runtime, the enqueueing code and each kind's handler agree on.

/** The payload of each kind: what insertJob takes and what the kind's handler is given. */
export interface JobPayloads {
  'document.submit': { documentId: string };
  'document.poll': {
    documentId: string;
    trackId: string;
    /** When polling started (epoch ms). */
    since: number;
    /** The current wait between polls (ms). */
    interval: number;
    /** When DGII first answered "No encontrado" in the current run of such answers. */
    notFoundSince?: number;
  };
  'webhook.deliver': { deliveryId: string; tenantId: number };
  /** Signs and sends an annulment (ANECF) to DGII. */
  'annulment.submit': { annulmentId: string };
  /** Periodic: sequence.expiring for the active ranges that entered the warning window. */
  'sequences.expiry': Record<string, never>;
  /** Delivers an accepted e-CF to its buyer's receiver (the buyer leg). */
  'exchange.deliver': { documentId: string };
  /** Sends a commercial approval the tenant decided as buyer to the emisor's receiver or to DGII. */
  'exchange.approval': { approvalId: string; target: 'emisor' | 'dgii' };
  /** Asks DGII (Consulta Estado, as buyer) about an e-CF the tenant received. */
  'receiver.verify': { receivedId: string };
  /** E-mails an accepted e-CF to its buyer (documents/buyer-email.ts). */
  'email.send': { documentId: string; tenantId: number };
  /** Sends a commercial approval about any e-CF (approvals/) to DGII or to the emisor's receiver. */
  'approval.send': { approvalId: string; target: 'emisor' | 'dgii' };
  'maintenance.purge': Record<string, never>;
  /** Periodic: gives a job back to work in flight that lost its own (src/maintenance/repair.ts). */
  'maintenance.repair': Record<string, never>;
  /** Does nothing: used by the queue's tests and benchmark, whose fields tell jobs apart. */
  noop: Record<string, string | number>;
}

export const JOB_KINDS = {
  'document.submit': { maxAttempts: 8, backoffBaseMs: 2_000, backoffMaxMs: 300_000 },
  'document.poll': { maxAttempts: 20, backoffBaseMs: 2_000, backoffMaxMs: 300_000 },
  'webhook.deliver': { maxAttempts: 50, backoffBaseMs: 1_000, backoffMaxMs: 60_000 },
  'annulment.submit': { maxAttempts: 8, backoffBaseMs: 2_000, backoffMaxMs: 300_000 },
  'sequences.expiry': { maxAttempts: 1_000_000, backoffBaseMs: 60_000, backoffMaxMs: 3_600_000 },
  'exchange.deliver': { maxAttempts: 8, backoffBaseMs: 5_000, backoffMaxMs: 600_000 },
  'exchange.approval': { maxAttempts: 8, backoffBaseMs: 5_000, backoffMaxMs: 600_000 },
  'receiver.verify': { maxAttempts: 8, backoffBaseMs: 5_000, backoffMaxMs: 600_000 },
  'email.send': { maxAttempts: 8, backoffBaseMs: 60_000, backoffMaxMs: 3_600_000 },
  'approval.send': { maxAttempts: 8, backoffBaseMs: 5_000, backoffMaxMs: 600_000 },
  'maintenance.purge': { maxAttempts: 1_000_000, backoffBaseMs: 60_000, backoffMaxMs: 3_600_000 },
  'maintenance.repair': { maxAttempts: 1_000_000, backoffBaseMs: 5_000, backoffMaxMs: 300_000 },
  noop: { maxAttempts: 3, backoffBaseMs: 10, backoffMaxMs: 100 },
} as const satisfies Record<keyof JobPayloads, { maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number }>;

export type JobKind = keyof typeof JOB_KINDS;

/**
 * Webhook deliveries: run by a runtime of their own, they may wait by the thousand for a slow
 * receiver, so the other kinds' due jobs have an index without them, and deliveries one by
 * tenant (sql/0036), which claimJobs names in its text.
 */
export const DELIVERY_KIND = 'webhook.deliver' satisfies JobKind;

export interface RetryPolicy {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}
export const JOB_KIND_NAMES = Object.keys(JOB_KINDS) as JobKind[];

/** Exponential backoff with jitter over [c/2, c] where c = min(base·2^(n-1), max). */
export function backoffMs(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const { backoffBaseMs, backoffMaxMs } = policy;
  const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
