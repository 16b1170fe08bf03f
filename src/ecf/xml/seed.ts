// DGII's authentication seed: a random single-use value the taxpayer signs with its
// certificate and sends back to earn a token. DGII and every receiver issue the same document.
import { el, serializeXml } from '../../xml/index.ts';
import { dominicanTimestamp } from './dgii-time.ts';

/** How long an issued seed may be answered. */
export const SEED_TTL_MS = 5 * 60_000;

/** <SemillaModel><valor>…</valor><fecha>…</fecha></SemillaModel>. */
export function seedModelXml(valor: string, now: number): string {
  const seed = el(
    'SemillaModel',
    { 'xmlns:xsd': 'http://www.w3.org/2001/XMLSchema', 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance' },
    el('valor', valor),
    el('fecha', dominicanTimestamp(now)),
  );
  return serializeXml(seed, { declaration: true });
}
