import type { MaintenanceWait } from '../dgii/status-monitor.ts';
import type { Sql } from '../db/connect.ts';
import { PermanentAuthorityError, type TaxAuthority } from '../dgii/authority.ts';
import { NO_CERTIFICATE_MESSAGE } from '../dgii/protocol/client.ts';
import { formatEncf } from '../ecf/encf.ts';
import { buildAnecfXml, formatFechaHoraFirma } from '../ecf/xml/index.ts';
import { errorMessage } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import type { AnnulmentRow } from '../sequences/service.ts';
import type { SequenceService } from '../sequences/service.ts';
import { signXml } from '../xml/index.ts';
import { documentsIn } from './queries.ts';
import type { CredentialsOf } from './signing.ts';
import { transition } from './transitions.ts';

// `annulment.submit`: builds the ANECF, signs it once with the tenant's certificate (a retry
// resends the stored bytes), sends it and records DGII's answer. Accepted: each document in
// `error` inside it becomes `anulado` with its ecf.status_update, in the same transaction.
// Rejected: the numbers numbering has not passed are given back. No certificate, an answer
// that is neither, or the retry budget spent: `error`, and the numbers stay held (DGII may
// have annulled them; a new request for the same span is refused until then, see README).

export interface AnnulmentJobDeps {
  sql: Sql;
  sequences: SequenceService;
  authority: TaxAuthority;
  credentials: CredentialsOf;
  outbox: EventOutbox;
  policy: { maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number };
  log: Logger;
  /** How long the environment is in a published DGII maintenance window, or null (dgii/status-monitor.ts). */
  maintenanceWait?: MaintenanceWait;
}

const MAX_DOCUMENTS = 100_000;

export function annulmentJob(deps: AnnulmentJobDeps): JobDefinition<'annulment.submit'> {
  const { sql, sequences, authority, credentials, outbox, log } = deps;

  async function finish(a: AnnulmentRow, to: 'aceptado' | 'rechazado' | 'error', dgiiCode: string | null, dgiiMessage: string | null): Promise<void> {
    await sql.begin(async (tx) => {
      const updated = await sequences.finishAnnulment(tx, a, to, dgiiCode, dgiiMessage);
      if (updated === undefined || to !== 'aceptado') return;
      const docs = await documentsIn(tx, a.tenantId, a.environment, formatEncf(a.tipo, a.desde), formatEncf(a.tipo, a.hasta), MAX_DOCUMENTS);
      for (const doc of docs) {
        if (doc.estado !== 'error') continue;
        await transition(tx, outbox, doc, 'anulado', { dgiiCode, dgiiMessage: `Anulado por la anulación ${a.id} (ANECF aceptado por DGII)` });
      }
    });
    if (to !== 'aceptado') log.warn('annulment not accepted', { annulment: a.id, estado: to, reason: dgiiMessage });
  }

  async function signed(a: AnnulmentRow): Promise<string> {
    const stored = await sequences.annulmentXmlById(a.id);
    if (stored !== null) return stored;
    const now = new Date();
    const credential = await credentials(a.tenantId, now);
    if (credential === null) throw new PermanentAuthorityError(NO_CERTIFICATE_MESSAGE);
    const xml = buildAnecfXml({
      rncEmisor: a.rncEmisor,
      lines: [{ tipo: a.tipo, secuencias: [{ desde: formatEncf(a.tipo, a.desde), hasta: formatEncf(a.tipo, a.hasta) }] }],
      fechaHoraAnulacion: now,
    });
    return sequences.storeAnnulmentXml(a.id, signXml(xml, credential.privateKey, credential.certificate, credential.chain), formatFechaHoraFirma(now));
  }

  return {
    policy: deps.policy,
    async run(job, ctx) {
      const a = await sequences.findAnnulmentById(job.payload.annulmentId);
      if (a === undefined || a.estado !== 'recibido') return;
      // Not sent while DGII is in a published maintenance window: a planned wait, no attempt spent.
      const wait = deps.maintenanceWait?.(a.environment) ?? null;
      if (wait !== null) {
        ctx.log.info('DGII is in a published maintenance window; waiting for it to end', { annulment: a.id, environment: a.environment, retryInMs: wait });
        return { retryIn: Math.max(1, wait) };
      }
      try {
        const signedXml = await signed(a);
        const verdict = await authority.annul({ tenantId: a.tenantId, environment: a.environment, rncEmisor: a.rncEmisor, firstEncf: formatEncf(a.tipo, a.desde), signedXml }, ctx.signal);
        await finish(a, verdict.estado, verdict.dgiiCode, verdict.dgiiMessage);
      } catch (err) {
        if (!(err instanceof PermanentAuthorityError)) throw err;
        await finish(a, 'error', err.dgiiCode, err.message.slice(0, 1000));
      }
    },
    async exhausted(job, err) {
      const a = await sequences.findAnnulmentById(job.payload.annulmentId);
      if (a === undefined || a.estado !== 'recibido') return;
      await finish(a, 'error', null, `Could not be sent after ${job.attempts} attempts: ${errorMessage(err)}`.slice(0, 1000));
    },
  };
}
