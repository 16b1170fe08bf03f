import type { Sql } from '../db/connect.ts';
import { validationError } from '../errors.ts';
import { findRejectUnknown, saveRejectUnknown } from './queries.ts';

// The tenant's choices as a receiver: `rechazarDesconocidosDgii` rejects automatically (ACECF
// Estado 2) a received e-CF that DGII's Consulta Estado does not know (verification.ts). Off by
// default: an approval is the tenant's to give, and DGII's answer may be late.

export interface ReceiverSettingsView {
  rechazarDesconocidosDgii: boolean;
}

export class ReceiverSettings {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async get(tenantId: number): Promise<ReceiverSettingsView> {
    return { rechazarDesconocidosDgii: await findRejectUnknown(this.sql, tenantId) };
  }

  async update(tenantId: number, body: unknown): Promise<ReceiverSettingsView> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError([{ path: '', message: 'must be an object: { "rechazarDesconocidosDgii": true }' }]);
    const { rechazarDesconocidosDgii, ...rest } = body as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw validationError([{ path: extra, message: 'is not a receiver setting (rechazarDesconocidosDgii)' }]);
    if (typeof rechazarDesconocidosDgii !== 'boolean') throw validationError([{ path: 'rechazarDesconocidosDgii', message: 'must be true or false' }]);
    await saveRejectUnknown(this.sql, tenantId, rechazarDesconocidosDgii);
    return { rechazarDesconocidosDgii };
  }
}
