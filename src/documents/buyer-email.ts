// The accepted e-CF e-mailed to its buyer (`email.send`): when DGII accepts a document (aceptado
// or aceptado_condicional, never before: only an accepted e-CF has fiscal validity) whose
// tenant sends e-mail (PUT /api/email/settings) and which names a CorreoComprador, the e-mail is
// queued in the verdict's transaction (an outbox listener, so the pipeline does not know about
// it). The job builds a Spanish message with the printed representation (PDF) and the signed XML
// and hands it to the operator's SMTP relay (SMTP_URL); network errors, timeouts and 4xx replies
// are retried with backoff, a 5xx refusal or a spent budget leave correo.estado = error with the
// reason. Each outcome is on the document (`correo`) and in an ecf.email_update event.
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import type { PrintedPdf } from '../ecf/print/index.ts';
import { AppError, errorMessage, notFound } from '../errors.ts';
import type { EventListener, EventOutbox, RecordedEvent } from '../events/outbox.ts';
import type { Environment } from '../environments.ts';
import { buildMessage, isMailAddress, sendMail, SmtpError } from '../lib/smtp/index.ts';
import type { Logger } from '../log.ts';
import { insertJob, scheduleKeyedJob } from '../queue/queries.ts';
import type { JobDefinition } from '../queue/runtime.ts';
import { deliversAfter } from './buyer-leg.ts';
import { buyerEmailText } from './email-message.ts';
import {
  type DocumentEmailRow, type EmailChangeRow, type EmailSettingsRow, findDocumentEmail, findEmailSettings, queueDocumentEmail,
  recordEmailOutcome, reopenDocumentEmail, saveEmailSettings,
} from './email-queries.ts';
import { findDocument, findDocumentById, type DocumentRow } from './queries.ts';
import { findSignedXml } from './signature-queries.ts';
import { Input } from '../lib/input.ts';

/** E-mails of one tenant being sent at once, per instance. */
const EMAILS_PER_TENANT = 4;

/** One e-mail job per document at a time. */
const emailKey = (documentId: string): string => `email:${documentId}`;

const clip = (s: string): string => s.slice(0, 1000);

/** `correo` of a document: null when no e-mail was ever queued for it. */
export function emailView(row: DocumentEmailRow | undefined) {
  return row === undefined ? null : {
    estado: row.estado,
    destinatario: row.destinatario,
    detalle: row.detalle,
    enviadoEn: row.enviadoEn?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type EmailView = NonNullable<ReturnType<typeof emailView>>;

function emailUpdatePayload(row: EmailChangeRow): Record<string, unknown> {
  return { internalTrackId: row.documentId, encf: row.encf, environment: row.environment, correo: emailView(row), timestamp: new Date().toISOString() };
}

async function announce(tx: Queryable, outbox: EventOutbox, row: EmailChangeRow): Promise<void> {
  await outbox.record(tx, row.tenantId, 'ecf.email_update', emailUpdatePayload(row), { sequence: row.eventSeq });
}

export function settingsView(row: EmailSettingsRow | undefined, smtpConfigured: boolean) {
  return {
    enabled: row?.enabled ?? false,
    replyTo: row?.replyTo ?? null,
    smtpConfigured,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

export interface BuyerEmailDeps {
  sql: Sql;
  outbox: EventOutbox;
  config: Config['mail'];
  /** The printed representation (carta) of a stored document: DocumentService.printed. */
  pdf: (doc: DocumentRow) => Promise<PrintedPdf>;
  /** Wakes this instance's job runtime after a resend. */
  onQueued: () => void;
  log: Logger;
}

export class BuyerEmail {
  private readonly deps: BuyerEmailDeps;

  constructor(deps: BuyerEmailDeps) {
    this.deps = deps;
  }

  get configured(): boolean {
    return this.deps.config.smtp !== null && this.deps.config.from !== null;
  }

  /**
   * The outbox listener: an ecf.status_update to aceptado or aceptado_condicional queues the
   * document's e-mail, in the verdict's own transaction.
   */
  readonly onEvent: EventListener = {
    wants: (event) => event.kind === 'ecf.status_update' && this.configured && event.body.includes('"estado":"acept'),
    write: (tx, event) => this.queueFor(tx, event),
  };

  private async queueFor(tx: Queryable, event: RecordedEvent): Promise<void> {
    const { internalTrackId, estado } = JSON.parse(event.body) as { internalTrackId: string; estado: DocumentRow['estado'] };
    if (!deliversAfter(estado)) return;
    const queued = await queueDocumentEmail(tx, internalTrackId);
    if (queued === undefined) return;
    await announce(tx, this.deps.outbox, queued);
    await insertJob(tx, { kind: 'email.send', payload: { documentId: internalTrackId, tenantId: queued.tenantId }, uniqueKey: emailKey(internalTrackId) });
  }

  async settings(tenantId: number) {
    return settingsView(await findEmailSettings(this.deps.sql, tenantId), this.configured);
  }

  async saveSettings(tenantId: number, body: unknown) {
    const v = new Input(body);
    const current = await findEmailSettings(this.deps.sql, tenantId);
    const enabled = v.boolean('enabled', current?.enabled ?? false);
    const clearsReplyTo = (body as Record<string, unknown> | null)?.replyTo === null;
    const replyTo = v.optionalString('replyTo', { max: 254 });
    if (replyTo !== undefined && !isMailAddress(replyTo)) v.errors.push({ path: 'replyTo', message: 'must be a plain mail address such as contabilidad@example.com' });
    v.done();
    const saved = await saveEmailSettings(this.deps.sql, tenantId, enabled, replyTo ?? (clearsReplyTo ? null : current?.replyTo ?? null));
    return settingsView(saved, this.configured);
  }

  async status(tenantId: number, environment: Environment, id: string): Promise<EmailView | null> {
    const doc = await findDocument(this.deps.sql, tenantId, environment, id);
    if (doc === undefined) throw notFound('Document');
    return emailView(await findDocumentEmail(this.deps.sql, doc.id));
  }

  /** `correo` of a document already read (the document's detail). */
  async of(documentId: string): Promise<EmailView | null> {
    return emailView(await findDocumentEmail(this.deps.sql, documentId));
  }

  /**
   * The tenant's resend (POST …/correo/reenviar): an accepted document naming a CorreoComprador,
   * whatever its e-mail's outcome so far (enviado included: the buyer lost it), unless one is
   * pending. The tenant's on/off setting does not stop an explicit resend.
   */
  async resend(tenantId: number, environment: Environment, id: string): Promise<EmailView> {
    const view = await this.deps.sql.begin(async (tx) => {
      const doc = await findDocument(tx, tenantId, environment, id);
      // Another tenant's id answers as one that never existed, whatever this service's setup.
      if (doc === undefined) throw notFound('Document');
      if (!this.configured) throw new AppError('CONFLICT', 'E-mail is not set up on this service: the operator sets SMTP_URL and MAIL_FROM');
      if (!deliversAfter(doc.estado)) throw new AppError('CONFLICT', `Only a document DGII accepted is e-mailed to its buyer; this one is ${doc.estado}`);
      const to = correoComprador(doc);
      if (to === null) throw new AppError('CONFLICT', 'The document names no CorreoComprador to send it to');
      const reopened = await reopenDocumentEmail(tx, doc.id, tenantId, to, 'Envío solicitado de nuevo (POST …/correo/reenviar)');
      if (reopened === undefined) throw new AppError('CONFLICT', 'An e-mail of this document is already pending');
      await announce(tx, this.deps.outbox, reopened);
      await scheduleKeyedJob(tx, { kind: 'email.send', payload: { documentId: doc.id, tenantId }, uniqueKey: emailKey(doc.id) });
      return emailView(reopened) as EmailView;
    });
    this.deps.onQueued();
    return view;
  }

  job(): JobDefinition<'email.send'> {
    const { sql, outbox, config, log } = this.deps;
    const record = async (documentId: string, estado: 'enviado' | 'error', detalle: string | null): Promise<void> => {
      await sql.begin(async (tx) => {
        const changed = await recordEmailOutcome(tx, documentId, estado, detalle === null ? null : clip(detalle));
        if (changed !== undefined) await announce(tx, outbox, changed);
      });
      log.info('buyer e-mail recorded', { document: documentId, correo: estado, detalle });
    };
    return {
      policy: { maxAttempts: config.maxAttempts, backoffBaseMs: config.retryBaseMs, backoffMaxMs: config.retryMaxMs },
      // One tenant's burst of accepted e-CF (or a slow relay answer for it) cannot take every slot.
      group: { by: 'tenantId', limit: EMAILS_PER_TENANT },
      run: async (job, ctx) => {
        const email = await findDocumentEmail(sql, job.payload.documentId);
        if (email === undefined || email.estado !== 'pendiente') return;
        const doc = await findDocumentById(sql, email.documentId);
        if (doc === undefined) return;
        if (config.smtp === null || config.from === null) return record(doc.id, 'error', 'E-mail is not set up on this service (SMTP_URL, MAIL_FROM)');
        if (!isMailAddress(email.destinatario)) return record(doc.id, 'error', `CorreoComprador "${clip(email.destinatario)}" is not an address this service sends to`);
        const signed = await findSignedXml(sql, doc.id);
        if (signed === undefined || doc.securityCode === null || doc.timbreUrl === null) return record(doc.id, 'error', 'The document has no signed XML to attach');
        let pdf: PrintedPdf;
        try {
          pdf = await this.deps.pdf(doc);
        } catch (err) {
          return record(doc.id, 'error', `The printed representation could not be made: ${errorMessage(err)}`);
        }
        const settings = await findEmailSettings(sql, doc.tenantId);
        const text = buyerEmailText({ tipo: doc.tipo, encf: doc.encf, ecf: doc.ecf, montoTotal: doc.montoTotal, securityCode: doc.securityCode, timbreUrl: doc.timbreUrl });
        const message = buildMessage({
          from: { address: config.from, name: text.issuerName },
          to: { address: email.destinatario, name: text.buyerName },
          replyTo: settings?.replyTo === null || settings?.replyTo === undefined ? null : { address: settings.replyTo },
          subject: text.subject,
          text: text.body,
          attachments: [
            { filename: pdf.filename, contentType: 'application/pdf', data: pdf.data },
            { filename: pdf.filename.replace(/\.pdf$/, '.xml'), contentType: 'application/xml', data: Buffer.from(signed.signedXml, 'utf8') },
          ],
        });
        try {
          await sendMail(config.smtp, { from: config.from, to: email.destinatario, message, timeoutMs: config.timeoutMs, signal: ctx.signal });
        } catch (err) {
          if (err instanceof SmtpError && err.permanent) return record(doc.id, 'error', `The mail relay refused it: ${err.message}`);
          throw err;
        }
        return record(doc.id, 'enviado', null);
      },
      exhausted: async (job, err) => {
        await record(job.payload.documentId, 'error', `Could not be sent after ${job.attempts} attempts: ${clip(errorMessage(err))}`);
      },
    };
  }
}

/** The buyer's address as the e-CF names it, or null. */
function correoComprador(doc: DocumentRow): string | null {
  const comprador = (doc.ecf.Encabezado as { Comprador?: { CorreoComprador?: unknown } } | undefined)?.Comprador;
  return typeof comprador?.CorreoComprador === 'string' && comprador.CorreoComprador !== '' ? comprador.CorreoComprador : null;
}
