import type { EcfTipo } from '../../src/ecf/validation/index.ts';
import { sampleEcf, type JsonObject } from '../fixtures/ecf.ts';
import { call, type ApiResponse, type Loose } from './http.ts';
import { waitFor } from './wait.ts';

/** A valid e-CF of the tenant (its RNC as emisor), eNCF left to the service unless given. */
export function ecfFor(rnc: string, tipo: EcfTipo = 31, overrides: JsonObject = {}): { ECF: JsonObject } {
  return sampleEcf(tipo, {
    Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: rnc } },
    ...overrides,
  });
}

/** Environment of a service whose whole pipeline runs in well under a second. */
export const FAST_PIPELINE = {
  SIMULATOR_PROCESSING_MS: '150',
  DGII_POLL_INTERVAL_MS: '40',
  DGII_POLL_MAX_INTERVAL_MS: '100',
  QUEUE_POLL_INTERVAL_MS: '20',
  DGII_RETRY_BASE_MS: '20',
  DGII_RETRY_MAX_MS: '50',
  RATE_LIMIT_EMIT_PER_MINUTE: '100000',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
  RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '100000',
};

/** Waits until the document is in one of `estados`, returning its detail. */
export async function waitForEstado(baseUrl: string, env: string, id: string, headers: Record<string, string>, estados: string[], timeoutMs = 20_000): Promise<Loose> {
  let last: ApiResponse<Loose> | undefined;
  try {
    return await waitFor(async () => {
      last = await call(baseUrl, 'GET', `/${env}/documentos-ecf/${id}`, { headers });
      return estados.includes(last.body?.data?.estado) ? last.body.data : undefined;
    }, timeoutMs, `estado ${estados.join('|')}`);
  } catch (err) {
    throw new Error(`${(err as Error).message}; last answer: ${last?.text.slice(0, 500)}`);
  }
}
