import { timingSafeEqual, createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { header, type Route } from '../http/types.ts';
import type { ServiceMetrics } from './metrics.ts';

/** 127.0.0.0/8 (IPv4-mapped forms arrive already unwrapped) and ::1. */
function isLoopback(ip: string): boolean {
  return ip === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/**
 * Without a token, both must be on loopback: behind a proxy on this host the peer always is,
 * so the client the proxy names must be too; a client reaching the port directly with a
 * forged X-Forwarded-For is not on loopback itself.
 */
export function loopbackScrape(peerIp: string, clientIp: string): boolean {
  return isLoopback(peerIp) && isLoopback(clientIp);
}

function sameSecret(a: string, b: string): boolean {
  // Hashing first gives equal lengths, so the comparison is constant-time whatever is sent.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** GET /metrics: with METRICS_TOKEN set, only for `Authorization: Bearer <token>`; otherwise only from loopback. */
export function metricsRoutes(deps: { metrics: ServiceMetrics; token: string | null }): Route[] {
  return [
    {
      method: 'GET', path: '/metrics', auth: 'none',
      doc: {
        operationId: 'metrics', tags: ['System'], summary: 'Prometheus metrics',
        description: 'Text exposition format 0.0.4. Protected: with METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>`; without it, only clients on loopback are answered (the connection’s peer and, behind trusted proxies, the client they name). Served while the database is unreachable too: the request counters always, the database-derived gauges (`ecf_jobs_*`, `ecf_webhook_deliveries`) only when the database answers, as `ecf_database_up` (1 or 0) says.',
        responses: { '200': { description: 'Metrics.', contentType: 'text/plain; version=0.0.4', schema: { type: 'string' } }, '403': { description: 'FORBIDDEN: METRICS_TOKEN is set and the request lacks Authorization: Bearer <METRICS_TOKEN>, or it is unset and the connection’s peer, or the client TRUST_PROXY names, is not on loopback.', schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      },
      handler: async (ctx) => {
        if (deps.token !== null) {
          const m = /^Bearer +(\S+)\s*$/i.exec(header(ctx.headers, 'authorization') ?? '');
          if (m?.[1] === undefined || !sameSecret(m[1], deps.token)) throw new AppError('FORBIDDEN', 'Metrics need Authorization: Bearer <METRICS_TOKEN>');
        } else if (!loopbackScrape(ctx.peerIp, ctx.clientIp)) {
          throw new AppError('FORBIDDEN', 'Metrics are served to loopback clients only unless METRICS_TOKEN is set');
        }
        return { status: 200, raw: { data: await deps.metrics.render(), contentType: 'text/plain; version=0.0.4; charset=utf-8' } };
      },
    },
  ];
}
