import type { Queryable } from '../db/connect.ts';
import type { GaugeFamily } from '../metrics/registry.ts';
import { activeCertificateExpiries } from './metrics-queries.ts';

/** The expiry of each tenant's signing certificate, to alert on before it stops every submission. */
export async function certificateGauges(sql: Queryable): Promise<GaugeFamily[]> {
  const rows = await activeCertificateExpiries(sql);
  return [{
    name: 'ecf_certificate_not_after_seconds',
    help: 'Unix time at which each tenant\'s signing certificate expires (alert when it is less than 30 days away: ecf_certificate_not_after_seconds - time() < 30 * 86400).',
    samples: rows.map((r) => ({ labels: { tenant: String(r.tenantId) }, value: Math.floor(r.notAfter.getTime() / 1000) })),
  }];
}
