// Revocation status of a validated path, from the CRLs its certificates name. Fetching is
// injected (the feature passes a fetch that goes through the egress guard); only certificates
// already chained to a trust anchor are asked about, so the URLs fetched are ones a trusted CA
// wrote, never a sender's choice. CRLs are kept until their nextUpdate, a bounded number of
// them; a failed fetch is remembered briefly so a burst of requests does not hammer a CA that
// is down (or wait for its timeout each time).
import type { PathLink } from './chain.ts';
import { crlDistributionUrls } from './certificate-fields.ts';
import { type Crl, crlCoverageProblem, crlIssuerProblem, parseCrl } from './crl.ts';

export type FetchCrl = (url: string) => Promise<Buffer>;

export type RevocationStatus =
  | { status: 'good'; /** Certificates of the path (anchor excluded) that name no fetchable CRL. */ unchecked: number }
  | { status: 'revoked'; reason: string }
  | { status: 'unknown'; reason: string };

export interface RevocationOptions {
  fetchCrl: FetchCrl;
  /** CRLs kept at once. */
  maxCached?: number;
  /** How long a CRL without nextUpdate is kept. */
  defaultTtlMs?: number;
  /** How long a failed fetch is answered from memory. */
  failureTtlMs?: number;
  /** Distribution points tried per certificate. */
  maxUrls?: number;
}

interface Cached {
  crl: Crl;
  expires: number;
  /** crlIssuerProblem per issuer fingerprint: a signature over a large CRL is checked once. */
  issuers: Map<string, string | null>;
}

export class RevocationChecker {
  private readonly cache = new Map<string, Cached>();
  private readonly failures = new Map<string, { reason: string; until: number }>();
  private readonly inFlight = new Map<string, Promise<Cached>>();
  private readonly fetchCrl: FetchCrl;
  private readonly maxCached: number;
  private readonly defaultTtlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxUrls: number;

  constructor(options: RevocationOptions) {
    this.fetchCrl = options.fetchCrl;
    this.maxCached = options.maxCached ?? 64;
    this.defaultTtlMs = options.defaultTtlMs ?? 3_600_000;
    this.failureTtlMs = options.failureTtlMs ?? 30_000;
    this.maxUrls = options.maxUrls ?? 3;
  }

  /** The status of every certificate of `path` but its anchor; `revoked` as soon as one is. */
  async check(path: readonly PathLink[], now = new Date()): Promise<RevocationStatus> {
    let unchecked = 0;
    for (let i = 0; i + 1 < path.length; i++) {
      const { certificate, fields } = path[i] as PathLink;
      const issuer = path[i + 1] as PathLink;
      let urls: string[];
      try {
        urls = crlDistributionUrls(fields).slice(0, this.maxUrls);
      } catch {
        return { status: 'unknown', reason: `the CRL distribution points of «${certificate.subject.split('\n').join(', ')}» cannot be read` };
      }
      if (urls.length === 0) {
        unchecked++;
        continue;
      }
      const reasons: string[] = [];
      let answered = false;
      for (const url of urls) {
        let entry: Cached;
        try {
          entry = await this.load(url, now.getTime());
        } catch (e) {
          reasons.push(`${url}: ${e instanceof Error ? e.message : String(e)}`);
          continue;
        }
        let issuerProblem = entry.issuers.get(issuer.certificate.fingerprint256);
        if (issuerProblem === undefined) {
          issuerProblem = crlIssuerProblem(entry.crl, issuer.certificate, issuer.fields);
          entry.issuers.set(issuer.certificate.fingerprint256, issuerProblem);
        }
        const problem = issuerProblem ?? crlCoverageProblem(entry.crl, now, i > 0);
        if (problem !== null) {
          reasons.push(`${url}: ${problem}`);
          continue;
        }
        if (entry.crl.revoked.has(fields.serial)) {
          return { status: 'revoked', reason: `the certificate «${certificate.subject.split('\n').join(', ')}» (serial ${fields.serial}) is revoked according to ${url}` };
        }
        answered = true;
        break;
      }
      if (!answered) return { status: 'unknown', reason: reasons.join('; ') };
    }
    return { status: 'good', unchecked };
  }

  private async load(url: string, now: number): Promise<Cached> {
    const cached = this.cache.get(url);
    if (cached !== undefined && cached.expires > now) return cached;
    if (cached !== undefined) this.cache.delete(url);
    const failed = this.failures.get(url);
    if (failed !== undefined && failed.until > now) throw new Error(failed.reason);
    let pending = this.inFlight.get(url);
    if (pending === undefined) {
      pending = this.fetchAndParse(url);
      this.inFlight.set(url, pending);
      pending.then(() => this.inFlight.delete(url), () => this.inFlight.delete(url));
    }
    return pending;
  }

  private async fetchAndParse(url: string): Promise<Cached> {
    try {
      const crl = parseCrl(await this.fetchCrl(url));
      const fetchedAt = Date.now();
      const expires = crl.nextUpdate === null ? fetchedAt + this.defaultTtlMs : Math.min(crl.nextUpdate.getTime(), fetchedAt + 7 * 86_400_000);
      const entry: Cached = { crl, expires, issuers: new Map() };
      this.remember(url, entry);
      this.failures.delete(url);
      return entry;
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      if (this.failures.size >= this.maxCached) this.failures.clear();
      this.failures.set(url, { reason, until: Date.now() + this.failureTtlMs });
      throw new Error(reason);
    }
  }

  private remember(url: string, entry: Cached): void {
    this.cache.delete(url);
    if (this.cache.size >= this.maxCached) {
      const oldest = this.cache.keys().next();
      if (oldest.done !== true) this.cache.delete(oldest.value);
    }
    this.cache.set(url, entry);
  }
}
