import { createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { open, seal } from '../crypto/aead.ts';
import type { Sql } from '../db/connect.ts';
import { notFound, validationError } from '../errors.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import { checkSigningCertificate, describeCertificate, type SigningCredential } from './check.ts';
import type { WorkerAnswer } from './parser-pool.ts';
import {
  activateNewest, type CertificateRow, deactivateAll, deleteCertificate, findActiveSealed, insertActiveCertificate,
  listCertificates, lockTenant,
} from './queries.ts';

// A tenant's signing certificates: upload (parse, check, seal), listing, removal, and the
// decrypted active credential for whoever signs. The key and the certificate are sealed with
// AES-256-GCM under the key derived for 'certificates'; the tenant and row id are bound as
// additional data, so sealed bytes copied to another row or tenant do not open.

export interface CertificateView {
  id: string;
  subject: string;
  issuer: string;
  serialNumber: string;
  holderId: string | null;
  validFrom: string;
  validTo: string;
  fingerprint256: string;
  active: boolean;
  createdAt: string;
}

export function certificateView(row: CertificateRow): CertificateView {
  return {
    id: row.id,
    subject: row.subject,
    issuer: row.issuer,
    serialNumber: row.serialNumber,
    holderId: row.holderId,
    validFrom: row.validFrom.toISOString(),
    validTo: row.validTo.toISOString(),
    fingerprint256: row.fingerprint256,
    active: row.active,
    createdAt: row.createdAt.toISOString(),
  };
}

export interface CertificateStoreOptions {
  /** How long a decrypted credential is reused; uploads and removals on this instance end it at once. */
  cacheMs?: number;
  /** How long canSign remembers that a tenant has no usable certificate (see ABSENCE_CACHE_MS). */
  absenceCacheMs?: number;
}

/** Reads a PKCS#12 file off the event loop (ParserPool.parse); `owner` is the tenant whose turn it takes. */
export type Pkcs12Parser = (file: Buffer, password: string, owner: string) => Promise<WorkerAnswer>;

interface Cached extends SigningCredential {
  validFrom: Date;
  validTo: Date;
}

type Part = 'key' | 'certificate' | 'chain';

function sealContext(tenantId: number, id: string, part: Part): string {
  return `certificates/${tenantId}/${id}/${part}`;
}

const DEFAULT_CACHE_MS = 30_000;
const MAX_CACHED = 1000;
/**
 * An emit's NO_CERTIFICATE warning asked the database on every emit of a tenant without a
 * certificate (absence is not cached for signing): a round trip per emit, 0.02–0.04 ms of the
 * emit's 0.2–0.3 ms of CPU in the emit benchmark, whose tenants have none. For that advisory
 * warning only, absence is remembered this long: an upload on another instance shows in it
 * within a second, one on this instance at once; signing never uses it.
 */
const ABSENCE_CACHE_MS = 1_000;

export class CertificateStore {
  private readonly cache: TtlCache<Cached>;
  /** Tenants canSign found without a usable certificate. */
  private readonly absent: TtlCache<true>;
  // Bumped on every change, so a lookup that raced with it does not cache what it read.
  private generation = 0;
  private readonly sql: Sql;
  private readonly key: Buffer;
  private readonly parse: Pkcs12Parser;

  constructor(sql: Sql, key: Buffer, parse: Pkcs12Parser, options: CertificateStoreOptions = {}) {
    this.sql = sql;
    this.key = key;
    this.parse = parse;
    this.cache = new TtlCache<Cached>(options.cacheMs ?? DEFAULT_CACHE_MS, MAX_CACHED);
    this.absent = new TtlCache<true>(options.absenceCacheMs ?? ABSENCE_CACHE_MS, MAX_CACHED);
  }

  /**
   * Parses and checks a PKCS#12 file; a usable one is stored and becomes the tenant's active
   * certificate. Every reason it cannot be used is a 422 (VALIDATION_ERROR).
   */
  async upload(tenantId: number, file: Buffer, password: string, now = new Date()): Promise<CertificateView> {
    const parsed = await this.parse(file, password, String(tenantId));
    if (!parsed.ok) {
      throw validationError([{ path: parsed.code === 'BAD_PASSWORD' ? 'password' : 'p12', message: parsed.message }], parsed.message);
    }
    const privateKey = createPrivateKey({ key: parsed.privateKeyDer, format: 'der', type: 'pkcs8' });
    const certificate = new X509Certificate(parsed.certificateDer);
    const problems = checkSigningCertificate({ privateKey, certificate }, now);
    if (problems.length > 0) {
      throw validationError(
        problems.map((p) => ({ path: `p12.${p.path}`, message: p.message })),
        `The certificate cannot sign DGII documents: ${problems.map((p) => p.message).join(' ')}`,
      );
    }
    const summary = describeCertificate(certificate);
    const id = randomUUID();
    const row = await this.sql.begin(async (tx) => {
      await lockTenant(tx, tenantId);
      await deactivateAll(tx, tenantId);
      return insertActiveCertificate(tx, {
        id,
        tenantId,
        ...summary,
        keySealed: seal(this.key, parsed.privateKeyDer, sealContext(tenantId, id, 'key')),
        certificateSealed: seal(this.key, parsed.certificateDer, sealContext(tenantId, id, 'certificate')),
        chainSealed: seal(this.key, Buffer.from(JSON.stringify(parsed.intermediatesDer.map((d) => d.toString('base64')))), sealContext(tenantId, id, 'chain')),
      });
    });
    this.invalidate(tenantId);
    return certificateView(row);
  }

  async list(tenantId: number): Promise<CertificateView[]> {
    return (await listCertificates(this.sql, tenantId)).map(certificateView);
  }

  /** Removes a certificate; when it was the active one, the newest remaining one takes over. */
  async remove(tenantId: number, id: string): Promise<CertificateView> {
    const row = await this.sql.begin(async (tx) => {
      await lockTenant(tx, tenantId);
      const deleted = await deleteCertificate(tx, tenantId, id);
      if (deleted?.active === true) await activateNewest(tx, tenantId);
      return deleted;
    });
    if (row === undefined) throw notFound('Certificate');
    this.invalidate(tenantId);
    return certificateView({ ...row, active: false });
  }

  /** The tenant's active certificate if it is valid at `now` (decrypted), else null. */
  async credentials(tenantId: number, now: Date = new Date()): Promise<SigningCredential | null> {
    const cacheKey = String(tenantId);
    let entry = this.cache.get(cacheKey);
    if (entry === undefined) {
      const generation = this.generation;
      const row = await findActiveSealed(this.sql, tenantId);
      // Absence is not cached: a certificate uploaded on another instance counts at once.
      if (row === undefined) return null;
      entry = { ...this.unseal(tenantId, row.id, row.keySealed, row.certificateSealed, row.chainSealed), validFrom: row.validFrom, validTo: row.validTo };
      if (generation === this.generation) this.cache.set(cacheKey, entry);
    }
    if (entry.validFrom > now || entry.validTo <= now) return null;
    return { privateKey: entry.privateKey, certificate: entry.certificate, chain: entry.chain ?? [] };
  }

  /** Whether the tenant can sign now, for an emit's warning: an absence may be ABSENCE_CACHE_MS old. */
  async canSign(tenantId: number, now: Date = new Date()): Promise<boolean> {
    const key = String(tenantId);
    if (this.absent.get(key) !== undefined) return false;
    const generation = this.generation;
    const ready = (await this.credentials(tenantId, now)) !== null;
    if (!ready && generation === this.generation) this.absent.set(key, true);
    return ready;
  }

  private unseal(tenantId: number, id: string, keySealed: Buffer, certificateSealed: Buffer, chainSealed: Buffer | null): SigningCredential {
    try {
      const chain = chainSealed === null ? [] : (JSON.parse(open(this.key, chainSealed, sealContext(tenantId, id, 'chain')).toString('utf8')) as string[]);
      return {
        privateKey: createPrivateKey({ key: open(this.key, keySealed, sealContext(tenantId, id, 'key')), format: 'der', type: 'pkcs8' }),
        certificate: new X509Certificate(open(this.key, certificateSealed, sealContext(tenantId, id, 'certificate'))),
        chain: chain.map((der) => new X509Certificate(Buffer.from(der, 'base64'))),
      };
    } catch (err) {
      throw new Error(`certificate ${id} could not be decrypted (was ECF_MASTER_KEY changed?)`, { cause: err });
    }
  }

  private invalidate(tenantId: number): void {
    this.generation++;
    this.cache.delete(String(tenantId));
    this.absent.delete(String(tenantId));
  }
}
