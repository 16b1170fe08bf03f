import type { Queryable, Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { toPage } from '../lib/page.ts';
import { emitDocument } from './emit.ts';
import { SequenceBatcher } from './numbering.ts';
import { documentHistory, findDocument, findSignedXml, listDocuments, type DocumentRow, type ListFilter } from './queries.ts';
import { validateEcf } from '../ecf/validation/validate-ecf.ts';
import { documentDetail, documentSummary, type DocumentSummary } from './views.ts';
import { splitErpReference } from './erp-reference.ts';

export interface EmitResult {
  row: DocumentRow;
  view: ReturnType<typeof emittedView>;
}

export function emittedView(row: DocumentRow) {
  const s = documentSummary(row);
  return {
    internalTrackId: s.internalTrackId, encf: s.encf, estado: s.estado, tipo: s.tipo, environment: s.environment, fechaEmision: s.fechaEmision, montoTotal: s.montoTotal,
    referencia: s.referencia, metadata: s.metadata, createdAt: s.createdAt,
  };
}

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

  constructor(sql: Sql, outbox: EventOutbox, onQueued: () => void, findRnc: (tenantId: number) => Promise<string | undefined>) {
    this.sql = sql;
    this.outbox = outbox;
    this.onQueued = onQueued;
    this.findRnc = findRnc;
    this.batcher = new SequenceBatcher(sql);
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
    const row = await emitDocument(this.sql, this.batcher, this.outbox, { tenantId, environment, document: result.document, erp }, (tx, doc) => inTransaction(tx, emittedView(doc)));
    this.onQueued();
    return { row, view: emittedView(row) };
  }

  private async tenantRnc(tenantId: number): Promise<string> {
    let rnc = this.rncs.get(tenantId);
    if (rnc === undefined) {
      rnc = (await this.findRnc(tenantId)) ?? '';
      this.rncs.set(tenantId, rnc);
    }
    return rnc;
  }

  async get(tenantId: number, environment: Environment, id: string) {
    const row = await findDocument(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Document');
    return documentDetail(row, await documentHistory(this.sql, row.id));
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

  async list(filter: Omit<ListFilter, 'limit'> & { pageSize: number }): Promise<{ items: DocumentSummary[]; nextCursor: string | null }> {
    return toPage(await listDocuments(this.sql, { ...filter, limit: filter.pageSize + 1 }), filter.pageSize, documentSummary);
  }
}
