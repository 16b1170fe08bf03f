import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import { ECF_TIPOS } from '../ecf/ecf-types.ts';
import { toDgiiDate } from '../ecf/encf.ts';
import { buildAcecfXml } from '../ecf/xml/index.ts';
import type { MaintenanceWait } from '../dgii/status-monitor.ts';
import type { Environment } from '../environments.ts';
import { AppError, errorMessage, notFound, validationError, type FieldError } from '../errors.ts';
import { parseCalendarDate } from '../lib/dates.ts';
import { RNC } from '../lib/input.ts';
import { toPage, type Page } from '../lib/page.ts';
import type { Logger } from '../log.ts';
import { insertJob } from '../queue/queries.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import { readDecision, sendApprovalLeg, type ApprovalLegDeps } from '../receiver/buyer-approval.ts';
import type { CredentialSource } from '../receiver/service.ts';
import { signXml } from '../xml/index.ts';
import {
  type ApprovalRequestRow, findApprovalRequest, findApprovalRequestOf, findTenantApprovalRequest,
  insertApprovalRequest, listApprovalRequests, updateApprovalRequestLeg,
} from './queries.ts';

// Commercial approvals about any e-CF (POST /{env}/aprobaciones-comerciales): the tenant, as
// buyer, approves or rejects an e-CF named by its emisor's RNC, eNCF, issue date and total,
// whether or not the e-CF reached its receiver (invoices that arrive by other channels, and
// DGII's certification step 3, whose e-CF are DGII's own examples). The ACECF is built and signed
// like the one of a received e-CF (receiver/buyer-approval.ts) and its two legs are sent the same
// way: to DGII, and to the emisor's receiver when DGII's directory lists it.

const ENCF = new RegExp(`^E(${ECF_TIPOS.join('|')})\\d{10}$`);
const MONTO = /^\d{1,16}(\.\d{1,2})?$/;
const FIELDS = new Set(['rncEmisor', 'encf', 'fechaEmision', 'montoTotal', 'estado', 'motivo']);

export interface ApprovalInput {
  rncEmisor: string;
  encf: string;
  /** yyyy-MM-dd */
  fechaEmision: string;
  /** Two decimals. */
  montoTotal: string;
  estado: 'aprobado' | 'rechazado';
  motivo: string | null;
}

/** The request body read into an approval; 422 with every problem. */
export function readApprovalInput(body: unknown): ApprovalInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError([{ path: '$', message: 'must be a JSON object' }]);
  const b = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(b)) if (!FIELDS.has(key)) errors.push({ path: key, message: 'is not a known field (rncEmisor, encf, fechaEmision, montoTotal, estado, motivo)' });
  const text = (name: string): string | null => {
    const v = b[name];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
    errors.push({ path: name, message: v === undefined || v === null ? 'is required' : 'must be a non-empty string' });
    return null;
  };
  const rncEmisor = text('rncEmisor');
  if (rncEmisor !== null && !RNC.test(rncEmisor)) errors.push({ path: 'rncEmisor', message: 'must be an RNC (9 digits) or cédula (11 digits)' });
  const encf = text('encf');
  if (encf !== null && !ENCF.test(encf)) errors.push({ path: 'encf', message: `must be E, an e-CF type (${ECF_TIPOS.join(', ')}) and ten digits` });
  const fechaText = text('fechaEmision');
  const fechaEmision = fechaText === null ? null : parseCalendarDate(fechaText);
  if (fechaText !== null && (fechaEmision === null || fechaEmision < '2000-01-01' || fechaEmision > '2099-12-31')) errors.push({ path: 'fechaEmision', message: 'must be a date, yyyy-MM-dd or dd-MM-yyyy, between 2000 and 2099' });
  const rawMonto = b.montoTotal;
  const montoText = typeof rawMonto === 'number' && Number.isFinite(rawMonto) && rawMonto >= 0 && rawMonto < 1e15 ? rawMonto.toFixed(2) : typeof rawMonto === 'string' ? rawMonto.trim() : null;
  if (montoText === null || !MONTO.test(montoText)) errors.push({ path: 'montoTotal', message: 'must be an amount of at most 16 integer digits and 2 decimals, not negative' });
  let decision: { estado: 'aprobado' | 'rechazado'; motivo: string | null } | null = null;
  try {
    decision = readDecision({ estado: b.estado, ...(b.motivo === undefined ? {} : { motivo: b.motivo }) });
  } catch (err) {
    if (err instanceof AppError && err.details !== undefined) errors.push(...err.details);
    else throw err;
  }
  if (errors.length > 0 || rncEmisor === null || encf === null || fechaEmision === null || montoText === null || decision === null) {
    throw validationError(errors, 'The commercial approval is not valid');
  }
  const [int, frac = ''] = montoText.split('.');
  return { rncEmisor, encf, fechaEmision, montoTotal: `${BigInt(int ?? '0')}.${frac.padEnd(2, '0')}`, estado: decision.estado, motivo: decision.motivo };
}

export function approvalRequestView(row: ApprovalRequestRow) {
  return {
    id: row.id,
    rncEmisor: row.rncEmisor,
    encf: row.encf,
    fechaEmision: row.fechaEmision,
    montoTotal: row.montoTotal,
    rncComprador: row.rncComprador,
    estado: row.estado,
    motivo: row.motivo,
    emisor: { estado: row.emisorEstado, detalle: row.emisorDetalle },
    dgii: { estado: row.dgiiEstado, detalle: row.dgiiDetalle },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type ApprovalRequestView = ReturnType<typeof approvalRequestView>;

export interface CommercialApprovalDeps {
  sql: Sql;
  certificates: CredentialSource;
  /** The tenant's RNC: the ACECF's RNCComprador. */
  rncOf: (tenantId: number) => Promise<string | undefined>;
  onQueued: () => void;
}

export class CommercialApprovals {
  private readonly deps: CommercialApprovalDeps;

  constructor(deps: CommercialApprovalDeps) {
    this.deps = deps;
  }

  /** Builds, signs and stores the ACECF and queues its legs; `inTransaction` adds the caller's writes. */
  async create(tenantId: number, environment: Environment, body: unknown, inTransaction: (tx: Queryable, view: ApprovalRequestView) => Promise<void> = async () => {}): Promise<ApprovalRequestView> {
    const { sql, certificates } = this.deps;
    const input = readApprovalInput(body);
    const rncComprador = await this.deps.rncOf(tenantId);
    if (rncComprador === undefined) throw new AppError('UNAUTHORIZED');
    if (rncComprador === input.rncEmisor) throw validationError([{ path: 'rncEmisor', message: 'is this tenant\'s own RNC: a commercial approval is the buyer\'s answer to another taxpayer\'s e-CF' }], 'The commercial approval is not valid');
    const existing = await findApprovalRequestOf(sql, tenantId, environment, input.rncEmisor, input.encf);
    if (existing !== undefined) throw new AppError('CONFLICT', `A commercial approval was already sent for the e-CF ${input.encf} of ${input.rncEmisor} (id ${existing.id})`);
    const now = new Date();
    const credential = await certificates.credentials(tenantId, now);
    if (credential === null) throw new AppError('CONFLICT', 'No valid certificate to sign the commercial approval (ACECF): upload one with POST /api/certificates');
    let unsigned: string;
    try {
      unsigned = buildAcecfXml({
        rncEmisor: input.rncEmisor,
        encf: input.encf,
        fechaEmision: toDgiiDate(input.fechaEmision),
        montoTotal: input.montoTotal,
        rncComprador,
        estado: input.estado === 'aprobado' ? 1 : 2,
        ...(input.motivo === null ? {} : { detalleMotivoRechazo: input.motivo }),
        fechaHoraAprobacion: now,
      });
    } catch (err) {
      throw validationError([{ path: '$', message: `the ACECF does not satisfy DGII's schema: ${errorMessage(err)}` }], 'The commercial approval is not valid');
    }
    const xml = signXml(unsigned, credential.privateKey, credential.certificate, credential.chain);
    const id = randomUUID();
    const view = await sql.begin(async (tx) => {
      const stored = await insertApprovalRequest(tx, { id, tenantId, environment, rncEmisor: input.rncEmisor, encf: input.encf, fechaEmision: input.fechaEmision, montoTotal: input.montoTotal, rncComprador, estado: input.estado, motivo: input.motivo, xml });
      if (!stored) throw new AppError('CONFLICT', `A commercial approval was already sent for the e-CF ${input.encf} of ${input.rncEmisor}`);
      await insertJob(tx, { kind: 'approval.send', payload: { approvalId: id, target: 'dgii' } });
      await insertJob(tx, { kind: 'approval.send', payload: { approvalId: id, target: 'emisor' } });
      const row = await findApprovalRequest(tx, id);
      if (row === undefined) throw new Error('internal: the approval just stored is not found');
      const v = approvalRequestView(row);
      await inTransaction(tx, v);
      return v;
    });
    this.deps.onQueued();
    return view;
  }

  async get(tenantId: number, environment: Environment, id: string): Promise<ApprovalRequestView> {
    const row = await findTenantApprovalRequest(this.deps.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Commercial approval');
    return approvalRequestView(row);
  }

  /** The approval already sent about this e-CF, if any (test sets resume with it). */
  async find(tenantId: number, environment: Environment, rncEmisor: string, encf: string): Promise<ApprovalRequestView | null> {
    const row = await findApprovalRequestOf(this.deps.sql, tenantId, environment, rncEmisor, encf);
    return row === undefined ? null : approvalRequestView(row);
  }

  async list(tenantId: number, environment: Environment, after: string | undefined, pageSize: number): Promise<Page<ApprovalRequestView>> {
    return toPage(await listApprovalRequests(this.deps.sql, tenantId, environment, after, pageSize + 1), pageSize, approvalRequestView);
  }
}

export interface ApprovalSendDeps extends ApprovalLegDeps {
  sql: Sql;
  config: Config['exchange'];
  log: Logger;
  /** The DGII leg waits out DGII's published maintenance windows (a planned wait, no attempt spent). */
  maintenanceWait?: MaintenanceWait;
}

/** The job of each leg, with the exchange's retry policy. */
export function approvalRequestJob(deps: ApprovalSendDeps): JobDefinition<'approval.send'> {
  const { sql, config, log } = deps;
  const record = async (id: string, target: 'emisor' | 'dgii', estado: string, detalle: string | null) => {
    await updateApprovalRequestLeg(sql, id, target, estado, detalle === null ? null : detalle.slice(0, 1000));
    log.info('commercial approval leg recorded', { approval: id, target, estado, detalle });
  };
  return {
    policy: { maxAttempts: config.maxAttempts, backoffBaseMs: config.retryBaseMs, backoffMaxMs: config.retryMaxMs },
    async run(job, ctx) {
      const { approvalId, target } = job.payload;
      const a = await findApprovalRequest(sql, approvalId);
      if (a === undefined || (target === 'emisor' ? a.emisorEstado : a.dgiiEstado) !== 'pendiente') return;
      const wait = target === 'dgii' ? (deps.maintenanceWait?.(a.environment) ?? null) : null;
      if (wait !== null) return { retryIn: Math.max(1, wait) };
      // DGII names an ACECF's file by the buyer's RNC and the eNCF (RNCComprador + eNCF .xml).
      const fileName = `${a.rncComprador}${a.encf}.xml`;
      const outcome = await sendApprovalLeg(deps, target, { tenantId: a.tenantId, environment: a.environment, rncEmisor: a.rncEmisor, fileName, xml: a.xml }, ctx.signal);
      await record(a.id, target, outcome.estado, outcome.detalle);
    },
    async exhausted(job, err) {
      await record(job.payload.approvalId, job.payload.target, 'error', `Not sent after ${job.attempts} attempts: ${errorMessage(err)}`);
    },
  };
}
