import type { Queryable } from '../db/connect.ts';
import { ENVIRONMENTS } from '../environments.ts';
import { ESTADO_NAMES, RECEPTOR_ESTADOS } from '../ecf/states.ts';
import type { GaugeFamily } from '../metrics/registry.ts';
import { countBuyerLegs, countDocumentsByEstado } from './metrics-queries.ts';

/**
 * Documents by estado and buyer legs by receptor.estado, per environment, for /metrics. Every
 * (environment, state) pair is listed, 0 included, so an alert on a rate sees a series from the start.
 */
export async function documentGauges(sql: Queryable): Promise<GaugeFamily[]> {
  const [byEstado, legs] = await Promise.all([countDocumentsByEstado(sql), countBuyerLegs(sql)]);
  return [
    {
      name: 'ecf_documents',
      help: 'Issued documents by environment and estado (rechazado and error are the ones to alert on).',
      samples: ENVIRONMENTS.flatMap((environment) => ESTADO_NAMES.map((estado) => ({
        labels: { environment, estado },
        value: byEstado.find((r) => r.environment === environment && r.estado === estado)?.n ?? 0,
      }))),
    },
    {
      name: 'ecf_documents_receptor',
      help: 'Buyer legs (delivery of an accepted e-CF to the buyer\'s receiver) by environment and receptor.estado; error means the buyer\'s receiver failed after retries.',
      samples: ENVIRONMENTS.flatMap((environment) => RECEPTOR_ESTADOS.map((estado) => ({
        labels: { environment, estado },
        value: legs.find((r) => r.environment === environment && r.receptorEstado === estado)?.n ?? 0,
      }))),
    },
  ];
}
