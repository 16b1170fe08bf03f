import type { Sql } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { S, envelope } from '../http/openapi.ts';
import { ok } from '../http/reply.ts';
import { DeadlineExceeded, within } from '../lib/deadline.ts';
import type { Route } from '../http/types.ts';

export interface SystemRouteDeps {
  sql: Sql;
  openapi: () => Record<string, unknown>;
}

const READY_TIMEOUT_MS = 2000;

export function systemRoutes(deps: SystemRouteDeps): Route[] {
  return [
    {
      method: 'GET', path: '/healthz', auth: 'none',
      doc: { operationId: 'health', tags: ['System'], summary: 'Liveness: the process is up', responses: { '200': { description: 'Up.', schema: envelope(S.object({ status: S.string({ const: 'ok' }) })) } } },
      handler: async () => ok({ status: 'ok' }),
    },
    {
      method: 'GET', path: '/readyz', auth: 'none',
      doc: { operationId: 'ready', tags: ['System'], summary: 'Readiness: the database answers', responses: { '200': { description: 'Ready.', schema: envelope(S.object({ status: S.string({ const: 'ready' }) })) } } },
      handler: async () => {
        try {
          await within(deps.sql`select 1`, READY_TIMEOUT_MS);
        } catch (err) {
          throw new AppError('SERVICE_UNAVAILABLE', err instanceof DeadlineExceeded ? 'The database did not answer in time' : 'The database is not reachable');
        }
        return ok({ status: 'ready' });
      },
    },
    {
      method: 'GET', path: '/openapi.json', auth: 'none',
      doc: { operationId: 'openapi', tags: ['System'], summary: 'This OpenAPI 3.1 document', responses: { '200': { description: 'The document.', schema: { type: 'object' } } } },
      handler: async () => ({ status: 200, body: deps.openapi() }),
    },
  ];
}
