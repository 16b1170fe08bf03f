import type { Queryable } from '../db/connect.ts';

// Counts /metrics reads at scrape time (every instance reports the same). Each is one pass over
// documents: scrape every 15 s or less often.

export async function countDocumentsByEstado(sql: Queryable): Promise<{ environment: string; estado: string; n: number }[]> {
  return sql<{ environment: string; estado: string; n: number }[]>`
    select environment, estado, count(*)::int as n from documents group by environment, estado order by environment, estado`;
}

export async function countBuyerLegs(sql: Queryable): Promise<{ environment: string; receptorEstado: string; n: number }[]> {
  return sql<{ environment: string; receptorEstado: string; n: number }[]>`
    select environment, receptor_estado, count(*)::int as n from documents where receptor_estado is not null
    group by environment, receptor_estado order by environment, receptor_estado`;
}
