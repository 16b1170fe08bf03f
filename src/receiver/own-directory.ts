import type { Sql } from '../db/connect.ts';
import type { DirectoryEntry } from '../dgii/protocol/exchange-answers.ts';
import type { Environment } from '../environments.ts';
import { listTenants } from './auth-queries.ts';

// What the in-process DGII simulator's directory lists: every tenant of this same service as an
// electronic receiver at {PUBLIC_URL}/{env}/receptor/{rnc} (the service's own address when
// PUBLIC_URL is unset), so tenants of one service exchange e-CF with each other in development.

const MAX_LISTED = 10_000;

export function ownDirectory(sql: Sql, baseUrl: () => string): (environment: Environment, rnc: string | null) => Promise<DirectoryEntry[]> {
  return async (environment, rnc) => {
    const base = baseUrl().replace(/\/+$/, '');
    return (await listTenants(sql, rnc, MAX_LISTED)).map((t) => {
      const url = `${base}/${environment}/receptor/${t.rnc}`;
      return { nombre: t.name, rnc: t.rnc, urlRecepcion: url, urlAceptacion: url, urlOpcional: url };
    });
  };
}
