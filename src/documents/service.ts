import type { Queryable, Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { toPage } from '../lib/page.ts';
import { emitDocument } from './emit.ts';
import { SequenceBatcher } from './numbering.ts';
import {
  countDocumentsIn, creditedAgainst, documentHistory, findByEncf, findDocument, listDocuments, usedEncfs, type DocumentRow, type ListFilter,
} from './queries.ts';
import { clearSignature, findSignedXml } from './signature-queries.ts';
import { findArecf, findReceivedAcecf } from './receptor-queries.ts';
import { insertJob } from '../queue/queries.ts';
import type { DocumentUsage, SequenceService } from '../sequences/service.ts';
import { transition } from './transitions.ts';
import { validateEcf } from '../ecf/validation/validate-ecf.ts';
import { emissionProblems, noteProblems } from '../ecf/validation/emission-rules.ts';
import { printDocument, printMarks, type PrintedPdf, type PrintFormat } from '../ecf/print/index.ts';
import type { EcfObject } from '../ecf/types.ts';
import { documentDetail, documentSummary, type DocumentSummary, isoToDgiiDate, receptorView } from './views.ts';
import type { CreatedDocument } from './rows.ts';
import { redeliverToBuyer } from './buyer-delivery.ts';
import { emailView } from './buyer-email.ts';
import { findDocumentEmail } from './email-queries.ts';
import { findLogoImage } from './logo-queries.ts';
import { splitErpReference } from './erp-reference.ts';

export interface EmitResult {
  row: DocumentRow;
  view: ReturnType<typeof emittedView>;
}

/** The fields of documentSummary an emit answers with (written out: it runs on every emit). */
export function emittedView(row: CreatedDocument) {
  return {
    internalTrackId: row.id, encf: row.encf, estado: row.estado, tipo: row.tipo, environment: row.environment, fechaEmision: isoToDgiiDate(row.fechaEmision), montoTotal: row.montoTotal,
    referencia: row.referencia, metadata: row.metadata, createdAt: row.createdAt.toISOString(),
  };
}

/** What the sequences feature needs to know of the eNCFs documents use (app.ts hands it down). */
export const documentUsage: DocumentUsage = {
  used: usedEncfs,
  count: countDocumentsIn,
};

/** Emission and reading of documents; knows nothing of HTTP. */
export class DocumentService {
  /** A tenant's RNC never changes, so it is looked up once per process. */
  private readonly rncs = new Map<number, string>();
  private readonly batcher: SequenceBatcher;

  private readonly sql: Sql;
  private readonly outbox: EventOutbox;
  /** Called after an emit commits, to start its submission without waiting for the next poll. */
  private readonly onQueued: () => void;
  /** The tenant's RNC (the identity service's), read once per tenant. */
  private readonly findRnc: (tenantId: number) => Promise<string | undefined>;
  private readonly sequences: SequenceService;

  constructor(sql: Sql, outbox: EventOutbox, onQueued: () => void, findRnc: (tenantId: number) => Promise<string | undefined>, sequences: SequenceService) {
    this.sql = sql;
    this.outbox = outbox;
    this.onQueued = onQueued;
    this.findRnc = findRnc;
    this.sequences = sequences;
    this.batcher = new SequenceBatcher(sql, {
      ranges: (tx, key, count, checkUsed) => sequences.take(tx, key, count, checkUsed),
      chosen: (tx, key, encfs) => sequences.spendExplicitMany(tx, key, encfs),
    });
  }

  /** Validates and stores a document; 422 with every problem when it is not valid. */
  async emit(tenantId: number, environment: Environment, body: unknown, inTransaction: (tx: Queryable, view: ReturnType<typeof emittedView>) => Promise<void>): Promise<EmitResult> {
    const { rest, erp, errors } = splitErpReference(body);
    const result = validateEcf(rest);
    if (!result.ok || errors.length > 0) throw validationError([...errors, ...(result.ok ? [] : result.errors)], 'The e-CF is not valid');
    // A tenant is one taxpayer: DGII binds its token to that RNC, so it only signs and
    // sends its own documents.
    const rnc = await this.tenantRnc(tenantId);
    if (result.document.RNCEmisor !== rnc) {
      throw validationError([{ path: 'ECF.Encabezado.Emisor.RNCEmisor', message: `must be the RNC of this account (${rnc})` }], 'The e-CF is not valid');
    }
    // DGII's rules that need the calendar, the tenant or its other documents: before a number is taken.
    const problems = emissionProblems(result.document.ecf, { tipo: result.document.tipo, rncEmisor: rnc });
    if (problems.length > 0) throw validationError(problems, 'The e-CF is not valid');
    await this.checkModifiedEcf(tenantId, environment, result.document.tipo, result.document.ecf);
    let view: ReturnType<typeof emittedView> | undefined;
    const row = await emitDocument(this.batcher, this.outbox, { tenantId, environment, document: result.document, erp }, (tx, doc) => inTransaction(tx, (view = emittedView(doc))));
    this.onQueued();
    return { row, view: view ?? emittedView(row) };
  }

  /**
   * Sends a document in `error` again with the same eNCF: back to `recibido` (a history entry
   * and an ecf.status_update saying so), its signature forgotten so the submission signs it
   * anew with the current certificate. 409 from any other state, or while an annulment holds it.
   */
  async resubmit(tenantId: number, environment: Environment, id: string, inTransaction: (tx: Queryable, view: ReturnType<typeof emittedView>) => Promise<void>): Promise<ReturnType<typeof emittedView>> {
    const view = await this.sql.begin(async (tx) => {
      const found = await findDocument(tx, tenantId, environment, id);
      if (found === undefined) throw notFound('Document');
      // Exclusive with POST /{env}/anulaciones: the type's lock first, then the document read
      // again, so an annulment committed meanwhile is seen, and one that comes after sees this.
      await this.sequences.lockAgainstAnnulments(tx, { tenantId, environment, tipo: found.tipo });
      const doc = (await findDocument(tx, tenantId, environment, id)) ?? found;
      if (doc.estado !== 'error') throw new AppError('CONFLICT', `Only a document in error can be resubmitted; this one is ${doc.estado}`);
      if (await this.sequences.isAnnulled(tx, { tenantId, environment, tipo: doc.tipo }, doc.encf)) {
        throw new AppError('ENCF_ANNULLED', `The eNCF ${doc.encf} is in an annulment; it cannot be sent again`);
      }
      await clearSignature(tx, doc.id);
      const moved = await transition(tx, this.outbox, doc, 'recibido', { dgiiCode: null, dgiiMessage: null, detail: 'Resubmitted (POST …/reenviar): same eNCF, signed anew with the current certificate' });
      if (moved === undefined) throw new AppError('CONFLICT', 'The document changed state meanwhile; read it again');
      await insertJob(tx, { kind: 'document.submit', payload: { documentId: doc.id } });
      const shown = emittedView(moved);
      await inTransaction(tx, shown);
      return shown;
    });
    this.onQueued();
    return view;
  }

  /**
   * Delivers a document to its buyer again after its buyer leg ended in error (the buyer's
   * receiver was down past the retry budget, answered garbage, ...): 409 from any other leg state.
   */
  async redeliver(tenantId: number, environment: Environment, id: string, inTransaction: (tx: Queryable, view: DocumentSummary) => Promise<void>): Promise<DocumentSummary> {
    const view = await this.sql.begin(async (tx) => {
      const doc = await findDocument(tx, tenantId, environment, id);
      if (doc === undefined) throw notFound('Document');
      const leg = receptorView(doc).estado;
      if (leg !== 'error') throw new AppError('CONFLICT', `Only a buyer leg in error can be delivered again; this one is ${leg}`);
      const reopened = await redeliverToBuyer(tx, this.outbox, doc);
      if (reopened === undefined) throw new AppError('CONFLICT', 'The buyer leg changed meanwhile; read the document again');
      const shown = documentSummary(reopened);
      await inTransaction(tx, shown);
      return shown;
    });
    this.onQueued();
    return view;
  }

  /**
   * DGII: a debit or credit note (33, 34) that modifies an e-CF must name one that exists and was
   * accepted, carry its date, be for its buyer and (34) not credit more than is left of it;
   * checked here, before a number is spent. A paper NCF (B…) is not ours to check.
   */
  private async checkModifiedEcf(tenantId: number, environment: Environment, tipo: number, ecf: EcfObject): Promise<void> {
    if (tipo !== 33 && tipo !== 34) return;
    const referencia = ecf.InformacionReferencia;
    const ncf = typeof referencia === 'object' && referencia !== null && !Array.isArray(referencia) ? (referencia as EcfObject).NCFModificado : undefined;
    if (typeof ncf !== 'string' || !/^E\d{12}$/.test(ncf)) return;
    const path = 'ECF.InformacionReferencia.NCFModificado';
    const modified = await findByEncf(this.sql, tenantId, environment, ncf);
    if (modified === undefined) throw validationError([{ path, message: `must name an e-CF this account issued in ${environment}: ${ncf} was not issued` }], 'The e-CF is not valid');
    if (modified.estado !== 'aceptado' && modified.estado !== 'aceptado_condicional') {
      throw validationError([{ path, message: `must name an e-CF DGII accepted: ${ncf} is ${modified.estado}` }], 'The e-CF is not valid');
    }
    const credited = tipo === 34 ? await creditedAgainst(this.sql, tenantId, environment, ncf) : '0';
    const problems = noteProblems(ecf, tipo, { ...modified, encf: ncf }, credited);
    if (problems.length > 0) throw validationError(problems, 'The e-CF is not valid');
  }

  private async tenantRnc(tenantId: number): Promise<string> {
    let rnc = this.rncs.get(tenantId);
    if (rnc === undefined) {
      rnc = (await this.findRnc(tenantId)) ?? '';
      this.rncs.set(tenantId, rnc);
    }
    return rnc;
  }

  /** The tenant's RNC, for other features' documents (the annulments). */
  rncOf(tenantId: number): Promise<string> {
    return this.tenantRnc(tenantId);
  }

  async get(tenantId: number, environment: Environment, id: string) {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    const [history, email] = await Promise.all([documentHistory(this.sql, row.id), findDocumentEmail(this.sql, row.id)]);
    return { ...documentDetail(row, history), correo: emailView(email) };
  }

  /** The signed e-CF XML; 404 for another tenant's document and while it is not signed yet. */
  async signedXml(tenantId: number, environment: Environment, id: string): Promise<string> {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    const signed = await findSignedXml(this.sql, row.id);
    if (signed === undefined) {
      throw new AppError('NOT_FOUND', row.estado === 'error'
        ? 'This document was never signed: it ended in error before its submission (see dgiiMessage)'
        : 'This document is not signed yet: it is signed right before its first submission to DGII; try again shortly');
    }
    return signed.signedXml;
  }

  /** The printed representation; 409 DOCUMENT_NOT_SIGNED until the signature gives its security code. */
  async printed(tenantId: number, environment: Environment, id: string, format: PrintFormat): Promise<PrintedPdf> {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    if (row.securityCode === null || row.timbreUrl === null || row.fechaHoraFirma === null) {
      throw new AppError('DOCUMENT_NOT_SIGNED', row.estado === 'error'
        ? 'This document was never signed (it ended in error before its submission), so it has no printed representation'
        : 'This document is not signed yet: its security code and timbre exist once it is signed, right before its first submission to DGII; try again shortly');
    }
    const signature = { securityCode: row.securityCode, timbreUrl: row.timbreUrl, fechaHoraFirma: row.fechaHoraFirma };
    const marks = printMarks(environment, row.estado === 'rechazado');
    const logo = (await findLogoImage(this.sql, tenantId)) ?? null;
    return printDocument({ tipo: row.tipo, ecf: row.ecf, signature, marks, logo }, format, row.rncEmisor, row.encf, String(tenantId));
  }

  /** The buyer's signed ARECF; 404 for another tenant's document and while the buyer has not answered. */
  async arecf(tenantId: number, environment: Environment, id: string): Promise<string> {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    const xml = await findArecf(this.sql, row.id);
    if (xml === undefined) throw new AppError('NOT_FOUND', `The buyer has not acknowledged this document (receptor.estado is ${row.receptorEstado ?? 'pendiente or no_aplica'})`);
    return xml;
  }

  /** The signed RFCE sent to DGII for a type 32 under RD$250,000; 404 for other documents and before it is signed. */
  async rfce(tenantId: number, environment: Environment, id: string): Promise<string> {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    const signed = await findSignedXml(this.sql, row.id);
    if (signed?.rfceXml == null) throw new AppError('NOT_FOUND', 'This document has no RFCE: only a type 32 under RD$250,000 is summarised for DGII, once it is signed');
    return signed.rfceXml;
  }

  /** The buyer's signed commercial approval (ACECF); 404 while the buyer has sent none. */
  async acecf(tenantId: number, environment: Environment, id: string): Promise<string> {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    const xml = await findReceivedAcecf(this.sql, row.id);
    if (xml === undefined) throw new AppError('NOT_FOUND', 'The buyer has sent no commercial approval (ACECF) of this document');
    return xml;
  }

  async list(filter: Omit<ListFilter, 'limit'> & { pageSize: number }): Promise<{ items: DocumentSummary[]; nextCursor: string | null }> {
    return toPage(await listDocuments(this.sql, { ...filter, limit: filter.pageSize + 1 }), filter.pageSize, documentSummary);
  }
}
