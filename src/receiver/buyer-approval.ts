import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import { PermanentAuthorityError } from '../dgii/authority.ts';
import { notListed, type ReceiverDirectory } from '../dgii/directory.ts';
import type { DgiiClient } from '../dgii/protocol/client.ts';
import type { MaintenanceWait } from '../dgii/status-monitor.ts';
import { approvalFileName } from '../dgii/protocol/paths.ts';
import { buildAcecfXml } from '../ecf/xml/index.ts';
import { takesApproval } from '../ecf/exchange-rules.ts';
import type { Environment } from '../environments.ts';
import { AppError, errorMessage, notFound, validationError } from '../errors.ts';
import { ExchangeError } from '../exchange/egress.ts';
import type { FeClient } from '../exchange/fe-client.ts';
import type { EventOutbox } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import { insertJob } from '../queue/queries.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import { parseXml, signXml, textAt } from '../xml/index.ts';
import { findReceived, findSentApproval, insertSentApproval, type SentApprovalRow, updateSentApprovalLeg } from './queries.ts';
import type { CredentialSource } from './service.ts';

// The tenant as buyer answers an e-CF it received: POST …/documentos-recibidos/{id}/aprobacion
// builds the ACECF (valid against acecf.xsd), signs it with the tenant's certificate, stores the
// decision (one per document: a second is 409) and queues its two legs, each retried with
// backoff: to the emisor's approval service (URL from DGII's directory) and to DGII's
// aprobacioncomercial service. Each leg ends enviado, no_aplica (the emisor is not in the
// directory; DGII is not reachable through a custom authority) or error with the reason.

export type Decision = { estado: 'aprobado'; motivo: null } | { estado: 'rechazado'; motivo: string };

const MAX_MOTIVO = 250;

/** The decision in the request body; 422 with every problem otherwise. */
export function readDecision(body: unknown): Decision {
  const fail = (path: string, message: string): never => {
    throw validationError([{ path, message }], 'The commercial approval is not valid');
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail('', 'must be an object: { "estado": "aprobado" } or { "estado": "rechazado", "motivo": "…" }');
  const { estado, motivo, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return fail(extra, 'is not a field of the decision (estado, motivo)');
  if (estado === 'aprobado') {
    if (motivo !== undefined && motivo !== null) return fail('motivo', 'only goes with estado "rechazado"');
    return { estado, motivo: null };
  }
  if (estado !== 'rechazado') return fail('estado', 'must be "aprobado" or "rechazado"');
  if (typeof motivo !== 'string' || motivo.trim() === '') return fail('motivo', 'is required with estado "rechazado"');
  if (motivo.trim().length > MAX_MOTIVO) return fail('motivo', `must be at most ${MAX_MOTIVO} characters`);
  // The ACECF is XML: characters XML 1.0 cannot carry are refused rather than dropped.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(motivo)) return fail('motivo', 'contains control characters');
  return { estado, motivo: motivo.trim() };
}

export function sentApprovalView(row: SentApprovalRow) {
  return {
    estado: row.estado,
    motivo: row.motivo,
    emisor: { estado: row.emisorEstado, detalle: row.emisorDetalle },
    dgii: { estado: row.dgiiEstado, detalle: row.dgiiDetalle },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The ecf.commercial_approval_update payload: which leg ended, how, and the whole decision. */
export function approvalUpdatePayload(row: SentApprovalRow, leg: 'emisor' | 'dgii'): Record<string, unknown> {
  const view = sentApprovalView(row);
  return {
    receivedDocumentId: row.receivedDocumentId, environment: row.environment, encf: row.encf, rncEmisor: row.rncEmisor,
    leg, estado: view[leg].estado, detalle: view[leg].detalle, aprobacionComercial: view, timestamp: new Date().toISOString(),
  };
}

export interface BuyerApprovalDeps {
  sql: Sql;
  certificates: CredentialSource;
  /** Called once the decision commits, to start its legs without waiting for the next poll. */
  onQueued: () => void;
}

export class BuyerApprovals {
  private readonly deps: BuyerApprovalDeps;

  constructor(deps: BuyerApprovalDeps) {
    this.deps = deps;
  }

  /** Signs and stores the decision and queues its two legs; `inTransaction` adds the caller's writes. */
  async decide(tenantId: number, environment: Environment, receivedId: string, body: unknown, inTransaction: (tx: Queryable, view: ReturnType<typeof sentApprovalView>) => Promise<void>) {
    const { sql, certificates } = this.deps;
    const decision = readDecision(body);
    const received = await findReceived(sql, tenantId, environment, receivedId);
    if (received === undefined) throw notFound('Received document');
    // Documents of these types were received before the v1.6 table was applied at the receiver.
    if (!takesApproval(received.tipo)) {
      throw new AppError('CONFLICT', `La aprobación comercial no aplica al tipo de e-CF ${received.tipo} (Descripción técnica de facturación electrónica v1.6: no se aprueban los tipos 32, 41, 43, 46 y 47)`);
    }
    const now = new Date();
    const credential = await certificates.credentials(tenantId, now);
    if (credential === null) throw new AppError('CONFLICT', 'No valid certificate to sign the commercial approval (ACECF): upload one with POST /api/certificates');
    const [y, m, d] = received.fechaEmision.split('-');
    const unsigned = buildAcecfXml({
      rncEmisor: received.rncEmisor,
      encf: received.encf,
      fechaEmision: `${d}-${m}-${y}`,
      montoTotal: Number(received.montoTotal).toFixed(2),
      rncComprador: received.rncComprador,
      estado: decision.estado === 'aprobado' ? 1 : 2,
      ...(decision.motivo === null ? {} : { detalleMotivoRechazo: decision.motivo }),
      fechaHoraAprobacion: now,
    });
    const xml = signXml(unsigned, credential.privateKey, credential.certificate, credential.chain);
    const id = randomUUID();
    const view = await sql.begin(async (tx) => {
      const stored = await insertSentApproval(tx, { id, tenantId, receivedDocumentId: received.id, estado: decision.estado, motivo: decision.motivo, xml });
      if (!stored) throw new AppError('CONFLICT', `A commercial approval was already decided for the e-CF ${received.encf}`);
      await insertJob(tx, { kind: 'exchange.approval', payload: { approvalId: id, target: 'emisor' } });
      await insertJob(tx, { kind: 'exchange.approval', payload: { approvalId: id, target: 'dgii' } });
      const row = await findSentApproval(tx, id);
      if (row === undefined) throw new Error('internal: the approval just stored is not found');
      const v = sentApprovalView(row);
      await inTransaction(tx, v);
      return v;
    });
    this.deps.onQueued();
    return view;
  }
}

export interface ApprovalJobDeps {
  sql: Sql;
  outbox: EventOutbox;
  directory: ReceiverDirectory;
  /** DGII's client; null with a custom tax authority (then the DGII leg is no_aplica). */
  dgii: DgiiClient | null;
  fe: FeClient;
  certificates: CredentialSource;
  config: Config['exchange'];
  log: Logger;
  /** The DGII leg waits out DGII's published maintenance windows (a planned wait, no attempt spent). */
  maintenanceWait?: MaintenanceWait;
}

export interface ApprovalLegDeps {
  directory: ReceiverDirectory;
  /** DGII's client; null with a custom tax authority (then the DGII leg is no_aplica). */
  dgii: DgiiClient | null;
  fe: FeClient;
  certificates: CredentialSource;
}

/** A signed ACECF on its way: whose, about which emisor's e-CF, under which file name. */
export interface OutgoingApproval {
  tenantId: number;
  environment: Environment;
  rncEmisor: string;
  fileName: string;
  xml: string;
}

export type LegOutcome = { estado: 'enviado' | 'no_aplica' | 'error'; detalle: string | null };

/**
 * Sends one leg of a commercial approval: to DGII's aprobacioncomercial service, or to the
 * emisor's receiver when DGII's directory lists it. The outcome to record; throws when the
 * failure is worth another attempt. Also used by approvals/ for approvals about any e-CF.
 */
export async function sendApprovalLeg(deps: ApprovalLegDeps, target: 'emisor' | 'dgii', a: OutgoingApproval, signal: AbortSignal): Promise<LegOutcome> {
  const { directory, dgii, fe, certificates } = deps;
  try {
    if (target === 'dgii') {
      if (dgii === null) return { estado: 'no_aplica', detalle: 'No DGII client with a custom tax authority' };
      const answer = await dgii.sendApproval(a.tenantId, a.environment, { fileName: a.fileName, xml: a.xml }, signal);
      return { estado: 'enviado', detalle: [answer.codigo, answer.estado, ...answer.mensajes].filter((x) => x !== null).join(' ') || null };
    }
    const entry = await directory.lookup(a.tenantId, a.environment, a.rncEmisor, signal);
    if (entry === null) return { estado: 'no_aplica', detalle: notListed(a.environment, a.rncEmisor) };
    const credential = await certificates.credentials(a.tenantId, new Date());
    if (credential === null) return { estado: 'error', detalle: 'No valid certificate to authenticate to the emisor\'s receiver' };
    await fe.sendApproval(entry, credential, a.fileName, a.xml, signal);
    return { estado: 'enviado', detalle: null };
  } catch (err) {
    if (err instanceof PermanentAuthorityError || (err instanceof ExchangeError && !err.transient)) return { estado: 'error', detalle: errorMessage(err) };
    throw err;
  }
}

/** DGII names an ACECF by its RNCComprador (this tenant, the buyer) and the eNCF it approves. */
function acecfFileName(xml: string, encf: string): string {
  const rncComprador = textAt(parseXml(xml).root, ['DetalleAprobacionComercial', 'RNCComprador'])?.trim() ?? '';
  return approvalFileName(rncComprador, encf);
}

export function approvalSendJob(deps: ApprovalJobDeps): JobDefinition<'exchange.approval'> {
  const { sql, outbox, config, log } = deps;
  // Each leg's end is told to the buyer (the tenant) with an ecf.commercial_approval_update.
  const record = async (id: string, target: 'emisor' | 'dgii', estado: string, detalle: string | null) => {
    await sql.begin(async (tx) => {
      await updateSentApprovalLeg(tx, id, target, estado, detalle === null ? null : detalle.slice(0, 1000));
      const row = await findSentApproval(tx, id);
      if (row !== undefined) await outbox.record(tx, row.tenantId, 'ecf.commercial_approval_update', approvalUpdatePayload(row, target));
    });
    log.info('commercial approval leg recorded', { approval: id, target, estado, detalle });
  };
  return {
    policy: { maxAttempts: config.maxAttempts, backoffBaseMs: config.retryBaseMs, backoffMaxMs: config.retryMaxMs },
    async run(job, ctx) {
      const { approvalId, target } = job.payload;
      const a = await findSentApproval(sql, approvalId);
      if (a === undefined || (target === 'emisor' ? a.emisorEstado : a.dgiiEstado) !== 'pendiente') return;
      const wait = target === 'dgii' ? (deps.maintenanceWait?.(a.environment) ?? null) : null;
      if (wait !== null) return { retryIn: Math.max(1, wait) };
      const fileName = acecfFileName(a.xml, a.encf);
      const outcome = await sendApprovalLeg(deps, target, { tenantId: a.tenantId, environment: a.environment, rncEmisor: a.rncEmisor, fileName, xml: a.xml }, ctx.signal);
      await record(a.id, target, outcome.estado, outcome.detalle);
    },
    async exhausted(job, err) {
      await record(job.payload.approvalId, job.payload.target, 'error', `Not sent after ${job.attempts} attempts: ${errorMessage(err)}`);
    },
  };
}
