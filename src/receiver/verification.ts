import type { Config } from '../config.ts';
import type { Sql } from '../db/connect.ts';
import { PermanentAuthorityError } from '../dgii/authority.ts';
import { publishes } from '../environments.ts';
import type { DgiiClient } from '../dgii/protocol/client.ts';
import type { MaintenanceWait } from '../dgii/status-monitor.ts';
import { AppError, errorMessage } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import type { BuyerApprovals } from './buyer-approval.ts';
import { type DgiiVerification, findReceivedById, findRejectUnknown, recordVerification, type ReceivedRow } from './queries.ts';
import { receivedEventPayload } from './views.ts';

// A buyer checks what it receives (`receiver.verify`). A received e-CF proves only that its
// emisor's key signed it, not that DGII ever received it: a fabricated document passes every
// check of the receiver. So each one is looked up with DGII's Consulta Estado, as its buyer
// (RNCEmisor, eNCF, RNCComprador and the security code only its signature has), and the answer
// is stored and shown (verificacionDgii). While DGII has not processed it (En Proceso) or does
// not know it yet (an emisor may send it to the buyer and to DGII at the same time) it is asked
// again with backoff; when the budget is spent, the last answer stands. Each final answer is an
// ecf.received_verification event; a tenant that chose so (PUT /api/receptor/settings) rejects an
// e-CF DGII does not know with an ACECF, as if it had decided so itself.

const ESTADO_OF: Readonly<Record<number, DgiiVerification>> = { 0: 'no_encontrado', 1: 'aceptado', 2: 'rechazado', 3: 'en_proceso', 4: 'aceptado_condicional' };

export const UNKNOWN_TO_DGII_MOTIVO = 'Rechazo automático: DGII no conoce este e-CF (Consulta Estado: No encontrado)';

class NotYetSettled extends Error {
  override name = 'NotYetSettled';
}

export interface VerificationDeps {
  sql: Sql;
  /** DGII's client; null with a custom tax authority (then the answer is no_disponible). */
  dgii: DgiiClient | null;
  outbox: EventOutbox;
  approvals: BuyerApprovals;
  config: Config['exchange'];
  log: Logger;
  /** Consulta Estado waits out DGII's published maintenance windows (a planned wait, no attempt spent). */
  maintenanceWait?: MaintenanceWait;
}

export function receivedVerificationJob(deps: VerificationDeps): JobDefinition<'receiver.verify'> {
  const { sql, dgii, outbox, approvals, config, log } = deps;

  async function settle(id: string, estado: DgiiVerification, codigo: number | null): Promise<void> {
    const row = await sql.begin(async (tx) => {
      const updated = await recordVerification(tx, id, estado, codigo);
      if (updated !== undefined) await outbox.record(tx, updated.tenantId, 'ecf.received_verification', receivedEventPayload(updated));
      return updated;
    });
    if (row === undefined) return;
    log.info('received e-CF verified with DGII', { received: id, estado, codigo });
    if (estado === 'no_encontrado') await rejectIfChosen(row);
  }

  async function rejectIfChosen(row: ReceivedRow): Promise<void> {
    if (!(await findRejectUnknown(sql, row.tenantId))) return;
    try {
      await approvals.decide(row.tenantId, row.environment, row.id, { estado: 'rechazado', motivo: UNKNOWN_TO_DGII_MOTIVO }, () => Promise.resolve());
      log.info('received e-CF unknown to DGII rejected automatically', { received: row.id, encf: row.encf });
    } catch (err) {
      // Already decided by the tenant, a type that takes no approval, or no certificate to sign with.
      if (err instanceof AppError) log.warn('received e-CF unknown to DGII not rejected automatically', { received: row.id, reason: err.message });
      else throw err;
    }
  }

  return {
    policy: { maxAttempts: config.maxAttempts, backoffBaseMs: config.retryBaseMs, backoffMaxMs: config.retryMaxMs },
    async run(job, ctx) {
      const row = await findReceivedById(sql, job.payload.receivedId);
      if (row === undefined) return;
      // No DGII client (a custom authority), or CerteCF, where DGII publishes no Consulta Estado.
      if (dgii === null || !publishes(row.environment, 'consultaestado')) return settle(row.id, 'no_disponible', null);
      const wait = deps.maintenanceWait?.(row.environment) ?? null;
      if (wait !== null) return { retryIn: Math.max(1, wait) };
      let codigo: number;
      try {
        const answer = await dgii.ecfStatus(row.tenantId, row.environment, { rncEmisor: row.rncEmisor, encf: row.encf, rncComprador: row.rncComprador, codigoSeguridad: row.securityCode }, ctx.signal);
        codigo = answer.codigo;
      } catch (err) {
        if (err instanceof PermanentAuthorityError) {
          log.warn('received e-CF could not be verified with DGII', { received: row.id, reason: errorMessage(err) });
          return settle(row.id, 'error', null);
        }
        throw err;
      }
      const estado = ESTADO_OF[codigo] ?? 'error';
      if (estado === 'en_proceso' || estado === 'no_encontrado') {
        // Shown at once, asked again later; the event waits for the final answer.
        await recordVerification(sql, row.id, estado, codigo);
        throw new NotYetSettled(`DGII answered ${estado} for ${row.encf}`);
      }
      return settle(row.id, estado, codigo);
    },
    async exhausted(job, err) {
      const row = await findReceivedById(sql, job.payload.receivedId);
      if (row === undefined) return;
      // The last answer stands (no_encontrado, en_proceso); a query that never got one is error.
      if (err instanceof NotYetSettled && row.dgiiEstado !== null && row.dgiiEstado !== 'pendiente') return settle(row.id, row.dgiiEstado, row.dgiiCodigo);
      log.warn('received e-CF could not be verified with DGII', { received: row.id, reason: errorMessage(err) });
      return settle(row.id, 'error', null);
    },
  };
}
