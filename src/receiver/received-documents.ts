import type { Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { AppError, errorMessage, notFound } from '../errors.ts';
import { printDocument, printMarks, type PrintedPdf, type PrintFormat, type PrintSignature } from '../ecf/print/index.ts';
import { receivedSignature } from './printing.ts';
import { toPage } from '../lib/page.ts';
import { findReceived, findReceivedXml, findSentApprovalOf, findSentApprovalXml, listReceived, type ReceivedFilter } from './queries.ts';
import { sentApprovalView } from './buyer-approval.ts';
import { receivedDetail, receivedSummary, type ReceivedSummary } from './views.ts';

/** Reading the e-CF a tenant received, for the tenant's own API. */
export class ReceivedDocuments {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async list(filter: Omit<ReceivedFilter, 'limit'> & { pageSize: number }): Promise<{ items: ReceivedSummary[]; nextCursor: string | null }> {
    // One row more than asked tells whether another page exists.
    return toPage(await listReceived(this.sql, { ...filter, limit: filter.pageSize + 1 }), filter.pageSize, receivedSummary);
  }

  async get(tenantId: number, environment: Environment, id: string) {
    const row = await findReceived(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Received document');
    const decision = await findSentApprovalOf(this.sql, row.id);
    return { ...receivedDetail(row), aprobacionComercial: decision === undefined ? null : sentApprovalView(decision) };
  }

  /** `ecf`: the signed e-CF exactly as the sender uploaded it; `arecf`: the signed acknowledgement it got; `acecf`: the approval sent. */
  async xml(tenantId: number, environment: Environment, id: string, which: 'ecf' | 'arecf' | 'acecf'): Promise<string> {
    if (which === 'acecf') {
      const acecf = await findSentApprovalXml(this.sql, tenantId, environment, id);
      if (acecf !== undefined) return acecf;
      if ((await findReceived(this.sql, tenantId, environment, id)) === undefined) throw notFound('Received document');
      throw new AppError('NOT_FOUND', 'No commercial approval was decided on this received document');
    }
    const row = await findReceivedXml(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Received document');
    return which === 'ecf' ? row.xml : row.arecfXml;
  }

  /** The printed representation of a received e-CF, with the timbre its issuer's copy carries. */
  async printed(tenantId: number, environment: Environment, id: string, format: PrintFormat): Promise<PrintedPdf> {
    const row = await findReceived(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Received document');
    let signature: PrintSignature;
    try {
      signature = receivedSignature(row);
    } catch (err) {
      throw new AppError('VALIDATION_ERROR', `This document cannot be printed: ${errorMessage(err)}`);
    }
    return printDocument({ tipo: row.tipo, ecf: row.ecf, signature, marks: printMarks(environment, false) }, format, row.rncEmisor, row.encf, String(tenantId));
  }
}
