import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Sql } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { Logger } from '../log.ts';
import type { AuthMode, Headers } from '../http/types.ts';
import { header } from '../http/types.ts';
import { apiKeyPublicId, hashApiKey } from './api-keys.ts';
import { verifyJwt, type Claims } from './jwt.ts';
import type { ApiKeyScope, Principal } from '../http/principal.ts';
import { findApiKeyByPublicId, findSession, touchApiKey } from './queries.ts';

interface CachedKey {
  id: string;
  tenantId: number;
  hash: Buffer;
  revoked: boolean;
  scope: ApiKeyScope;
}

interface CachedSession {
  tenantId: number;
  userId: number;
  revoked: boolean;
}

const TOUCH_EVERY_MS = 60_000;

/**
 * Turns request credentials into a Principal. API keys and sessions are cached for a
 * few seconds (CREDENTIAL_CACHE_MS) so the hot path costs no query; a revocation made on
 * this instance evicts the entry at once, other instances notice within the TTL.
 */
export class Authenticator {
  private readonly keys: TtlCache<CachedKey>;
  /**
   * publicIds no key has, so made-up keys cost no query each. Apart and smaller: a flood of
   * them turns over only this cache, never evicting the real keys clients are using.
   */
  private readonly unknownKeys: TtlCache<true>;
  /** What a token is checked against: its session's tenant, user and state (null: no such session). */
  private readonly sessions: TtlCache<CachedSession | null>;
  private readonly touched = new TtlCache<true>(TOUCH_EVERY_MS, 100_000);
  private readonly sql: Sql;
  private readonly jwtKey: Buffer;
  private readonly config: Config['auth'];
  private readonly log: Logger;

  constructor(
    sql: Sql,
    jwtKey: Buffer,
    config: Config['auth'],
    log: Logger,
    sizes: { keys: number; unknownKeys: number } = { keys: 100_000, unknownKeys: 20_000 },
  ) {
    this.sql = sql;
    this.jwtKey = jwtKey;
    this.config = config;
    this.log = log;
    this.keys = new TtlCache(config.credentialCacheMs, sizes.keys);
    this.unknownKeys = new TtlCache(config.credentialCacheMs, sizes.unknownKeys);
    this.sessions = new TtlCache(config.credentialCacheMs, 100_000);
  }

  /**
   * The Principal of a request's credentials. Synchronous when they are cached (the hot path:
   * no promise, no microtask), a promise when a query must run first; throws (or rejects)
   * with the 401/403 the request gets.
   */
  authenticate(mode: Exclude<AuthMode, 'none'>, headers: Headers): Principal | Promise<Principal> {
    const apiKey = header(headers, 'x-api-key');
    const authorization = header(headers, 'authorization');
    const wantsKey = mode === 'apiKey' || mode === 'apiKeyOrBearer';
    const wantsBearer = mode === 'bearer' || mode === 'apiKeyOrBearer';
    // A Form B client sends its Basic sign-in credentials beside X-API-KEY on every call; the key
    // authenticates it, so an Authorization of another scheme is not an attempt at a bearer token.
    const keyPresented = wantsKey && apiKey !== undefined;
    const otherScheme = authorization !== undefined && !isBearerScheme(authorization);
    const bearer = wantsBearer && !(keyPresented && otherScheme) ? bearerToken(authorization) : null;
    // The key is checked before the token, as before either is trusted.
    const key = keyPresented ? this.checkApiKey(apiKey) : null;
    if (key instanceof Promise) return key.then((k) => this.withToken(mode, k, bearer));
    return this.withToken(mode, key, bearer);
  }

  private withToken(mode: Exclude<AuthMode, 'none'>, key: VerifiedKey | null, bearer: string | null): Principal | Promise<Principal> {
    const claims = bearer !== null ? this.checkAccessToken(bearer) : null;
    if (claims instanceof Promise) return claims.then((c) => principalOf(mode, key, c));
    return principalOf(mode, key, claims);
  }

  /** Checks an X-API-KEY value; 403 INVALID_API_KEY when unknown, malformed or revoked. */
  async verifyApiKey(presented: string): Promise<VerifiedKey> {
    return this.checkApiKey(presented);
  }

  /** verifyApiKey without a promise when the key is cached (it throws instead of rejecting). */
  private checkApiKey(presented: string): VerifiedKey | Promise<VerifiedKey> {
    const publicId = apiKeyPublicId(presented);
    if (publicId === null) throw new AppError('INVALID_API_KEY');
    if (this.unknownKeys.get(publicId) !== undefined) throw new AppError('INVALID_API_KEY');
    const entry = this.keys.get(publicId);
    if (entry !== undefined) return this.keyMatch(entry, presented);
    return findApiKeyByPublicId(this.sql, publicId).then((row) => {
      if (row === undefined) {
        this.unknownKeys.set(publicId, true);
        throw new AppError('INVALID_API_KEY');
      }
      const loaded: CachedKey = { id: row.id, tenantId: row.tenantId, hash: row.keyHash, revoked: row.revokedAt !== null, scope: { environments: row.environments, readOnly: row.readOnly } };
      this.keys.set(publicId, loaded);
      return this.keyMatch(loaded, presented);
    });
  }

  private keyMatch(entry: CachedKey, presented: string): VerifiedKey {
    const matches = timingSafeEqual(hashApiKey(presented), entry.hash);
    if (!matches || entry.revoked) throw new AppError('INVALID_API_KEY');
    this.touch(entry.id);
    return { id: entry.id, tenantId: entry.tenantId, scope: entry.scope };
  }

  async verifyAccessToken(token: string): Promise<Claims> {
    return this.checkAccessToken(token);
  }

  /** verifyAccessToken without a promise when the session is cached. */
  private checkAccessToken(token: string): Claims | Promise<Claims> {
    const claims = verifyJwt(token, this.jwtKey, { issuer: this.config.issuer, type: 'access' });
    const sid = claims.sid;
    if (sid === undefined) throw new AppError('INVALID_TOKEN', 'The access token has no session');
    const session = this.sessions.get(sid);
    if (session !== undefined) return sessionValid(session, claims);
    return findSession(this.sql, sid).then((row) => {
      const loaded = row === undefined ? null : { tenantId: row.tenantId, userId: row.userId, revoked: row.revokedAt !== null };
      this.sessions.set(sid, loaded);
      return sessionValid(loaded, claims);
    });
  }

  forgetApiKey(publicId: string): void {
    this.keys.delete(publicId);
    this.unknownKeys.delete(publicId);
  }

  forgetSessions(ids: string[]): void {
    for (const id of ids) this.sessions.delete(id);
  }

  /** last_used_at is advisory: written at most once a minute per key, never awaited. */
  private touch(id: string): void {
    if (this.touched.get(id) !== undefined) return;
    this.touched.set(id, true);
    touchApiKey(this.sql, id).catch((err: unknown) => this.log.warn('could not record API key use', { err }));
  }
}

/** A checked API key: who it is, and what it may do. */
interface VerifiedKey {
  id: string;
  tenantId: number;
  scope: ApiKeyScope;
}

function principalOf(mode: Exclude<AuthMode, 'none'>, key: VerifiedKey | null, claims: Claims | null): Principal {
  if (key === null && claims === null) {
    const hint = mode === 'apiKey' ? 'an X-API-KEY header' : mode === 'bearer' ? 'an Authorization: Bearer token' : 'an X-API-KEY header or an Authorization: Bearer token';
    throw new AppError('UNAUTHORIZED', `Authentication required: send ${hint}`);
  }
  if (key !== null && claims !== null && key.tenantId !== claims.tid) {
    throw new AppError('FORBIDDEN', 'The API key and the bearer token belong to different tenants');
  }
  return {
    tenantId: key?.tenantId ?? (claims as Claims).tid,
    userId: claims === null ? null : Number(claims.sub),
    sessionId: claims?.sid ?? null,
    apiKeyId: key?.id ?? null,
    apiKeyScope: key?.scope ?? null,
  };
}

/** Checked on every use, cached or not: the session must be the one the token names, of its tenant and user. */
function sessionValid(session: CachedSession | null, claims: Claims): Claims {
  const valid = session !== null && !session.revoked && session.tenantId === claims.tid && String(session.userId) === claims.sub;
  if (!valid) throw new AppError('INVALID_TOKEN', 'The session of this token has been signed out or revoked');
  return claims;
}

function isBearerScheme(authorization: string): boolean {
  return /^\s*bearer(\s|$)/i.test(authorization);
}

/** The token of an `Authorization: Bearer …` header, null when absent; 401 for other schemes. */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const m = /^Bearer +([^\s]+)\s*$/i.exec(authorization);
  if (m?.[1] === undefined) throw new AppError('UNAUTHORIZED', 'The Authorization header must be "Bearer <access token>"');
  return m[1];
}
