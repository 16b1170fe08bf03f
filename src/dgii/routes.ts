import { S, envelope, type Schema } from '../http/openapi.ts';
import { envOf } from '../http/params.ts';
import { ok } from '../http/reply.ts';
import type { Route } from '../http/types.ts';
import { STATUS_ESTADOS } from './protocol/status-answers.ts';
import type { DgiiStatusMonitor } from './status-monitor.ts';

// GET /{env}/dgii/estatus: what this instance last read of DGII's "Estatus Servicios" for the
// environment. Always 200, even when DGII's status host was never reached: the answer then says
// so (estado null, checkedAt null, error) rather than failing, since "unknown" is the fact.

const WHEN = S.string({ format: 'date-time', description: 'ISO 8601 UTC.' });

export const DGII_STATUS: Schema = S.object({
  environment: S.string({ enum: ['TesteCF', 'CerteCF', 'eCF'] }),
  estado: S.nullable(S.string({ enum: [...STATUS_ESTADOS], description: 'DGII\'s verificarestado for the environment: "No Disponible" means in maintenance. null when never read.' })),
  services: S.nullable(S.array(S.object({
    servicio: S.string({ description: 'DGII\'s name: Autenticación, Recepción, Consulta Resultado, Consulta Estado, Consulta Directorio, Consulta TrackIds, Aprobación Comercial, Anulación Rangos, Recepción FC.' }),
    estatus: S.string({ description: 'DGII\'s word, as sent ("Disponible", …).' }),
  }))),
  maintenanceWindows: S.array(S.object({ start: WHEN, end: WHEN })),
  inMaintenance: S.bool(),
  maintenanceUntil: S.nullable(WHEN),
  checkedAt: S.nullable(WHEN),
  error: S.nullable(S.string()),
});

export function dgiiStatusRoutes(deps: { monitor: DgiiStatusMonitor }): Route[] {
  const { monitor } = deps;
  return [
    {
      method: 'GET', path: '/{env}/dgii/estatus', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'getDgiiStatus', tags: ['DGII'], summary: 'DGII\'s service status and maintenance windows for the environment',
        description: 'What this instance last read of DGII\'s "Estatus Servicios" (Descripción Técnica v1.6; read at start and every DGII_STATUS_REFRESH_MS): verificarestado\'s estado, obtenerestatus\'s per-service lines (null without DGII_STATUS_API_KEY), and the published maintenance windows that have not ended (start and end as UTC instants; DGII publishes Santo Domingo hours). While inMaintenance, submissions and status queries to DGII in this environment wait until maintenanceUntil plus DGII_MAINTENANCE_MARGIN_MS, without spending retry attempts. Always 200: when DGII could not be read, what was last read is kept and error says why; estado and checkedAt are null when nothing was ever read.',
        responses: { '200': { description: 'The environment\'s status as last read.', schema: envelope(S.ref('DgiiStatus')) } },
      },
      handler: async (ctx) => ok(await monitor.current(envOf(ctx))),
    },
  ];
}
