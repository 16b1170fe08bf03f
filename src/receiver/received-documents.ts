import type { Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { notFound } from '../errors.ts';
import { toPage } from '../lib/page.ts';
import { findReceived, findReceivedXml, findSentApprovalOf, listReceived, type ReceivedFilter } from './queries.ts';
import { sentApprovalView } from './buyer-approval.ts';
import { receivedDetail, receivedSummary, type ReceivedSummary } from './views.ts';

/** Reading the e-CF a tenant received, for the tenant's own API. */
export class ReceivedDocuments {
  constructor(private readonly sql: Sql) {}

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

  /** `ecf`: the signed e-CF exactly as the sender uploaded it; `arecf`: the signed acknowledgement it got. */
  async xml(tenantId: number, environment: Environment, id: string, which: 'ecf' | 'arecf'): Promise<string> {
    const row = await findReceivedXml(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Received document');
    return which === 'ecf' ? row.xml : row.arecfXml;
  }
}
