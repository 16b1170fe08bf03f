import { type Environment, publishes } from '../environments.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import { isValidTaxId } from '../ecf/tax-id.ts';
import type { DgiiClient } from './protocol/client.ts';
import type { DirectoryEntry } from './protocol/exchange-answers.ts';

// DGII's directory of electronic receivers, read through the emisor's own DGII session and
// remembered for DIRECTORY_CACHE_TTL_MS: a buyer's URLs change rarely, and every e-CF to the
// same buyer would otherwise cost a query. "Not in the directory" is remembered as well.

export interface ReceiverDirectory {
  /** The buyer's entry, or null when DGII does not list it as an electronic receiver. */
  lookup(tenantId: number, environment: Environment, rnc: string, signal: AbortSignal): Promise<DirectoryEntry | null>;
  /** What lookup would answer without asking DGII (from the cache, or nobody's number); undefined when it would ask. */
  peek(environment: Environment, rnc: string): DirectoryEntry | null | undefined;
}

const MAX_CACHED = 10_000;

export class CachedDirectory implements ReceiverDirectory {
  private readonly cache: TtlCache<{ entry: DirectoryEntry | null }>;
  private readonly client: DgiiClient;

  constructor(client: DgiiClient, ttlMs: number) {
    this.client = client;
    this.cache = new TtlCache(ttlMs, MAX_CACHED);
  }

  peek(environment: Environment, rnc: string): DirectoryEntry | null | undefined {
    // An RNC with a wrong check digit is nobody's: DGII would answer nothing, so it is not asked.
    if (!isValidTaxId(rnc)) return null;
    // CerteCF publishes no directory: nobody is listed there, and nothing is asked.
    if (!publishes(environment, 'consultadirectorio')) return null;
    return this.cache.get(`${environment}|${rnc}`)?.entry;
  }

  async lookup(tenantId: number, environment: Environment, rnc: string, signal: AbortSignal): Promise<DirectoryEntry | null> {
    const known = this.peek(environment, rnc);
    if (known !== undefined) return known;
    const key = `${environment}|${rnc}`;
    const entries = await this.client.directory(tenantId, environment, rnc, signal);
    const entry = entries.find((e) => e.rnc === rnc) ?? null;
    this.cache.set(key, { entry });
    return entry;
  }
}

/** Why a lookup found no receiver, for the record of the leg that does not apply. */
export function notListed(environment: Environment, rnc: string): string {
  if (!publishes(environment, 'consultadirectorio')) return `DGII publishes no directory of electronic receivers in ${environment} (Descripción Técnica v1.6, bitácora 28-12-2020)`;
  return `DGII's directory does not list ${rnc} as an electronic receiver in ${environment}`;
}

/** For a custom tax authority (tests of failure paths): nobody is an electronic receiver. */
export const EMPTY_DIRECTORY: ReceiverDirectory = { lookup: () => Promise.resolve(null), peek: () => null };
