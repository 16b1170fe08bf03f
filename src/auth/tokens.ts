import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { signJwt, verifyJwt } from './jwt.ts';
import { findSession, findUser, insertRefreshToken, insertSession, revokeSession, useRefreshToken, type UserRow } from './queries.ts';

export interface TokenSet {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  expiresIn: number;
  tokenType: 'Bearer';
}

/** The cache of session validity that a revocation must reach at once (the Authenticator). */
export interface SessionCache {
  forgetSessions(ids: string[]): void;
}

/**
 * Sessions and rotating refresh tokens. A session is one sign-in; every refresh uses up
 * its refresh token and issues the next one in the same session. Presenting a refresh
 * token that was already used means it leaked (or two clients share it): the whole
 * session is revoked, which also invalidates the access tokens issued from it.
 */
export class TokenIssuer {
  private readonly sql: Sql;
  private readonly key: Buffer;
  private readonly config: Config['auth'];
  private readonly log: Logger;
  private readonly sessions: SessionCache;

  constructor(sql: Sql, key: Buffer, config: Config['auth'], log: Logger, sessions: SessionCache) {
    this.sql = sql;
    this.key = key;
    this.config = config;
    this.log = log;
    this.sessions = sessions;
  }

  /** Opens a session for the user and returns its first token set. */
  async startSession(user: UserRow, sql: Queryable = this.sql): Promise<TokenSet> {
    const sessionId = randomUUID();
    const expiresAt = new Date(Date.now() + this.config.refreshTokenTtlSec * 1000);
    await insertSession(sql, { id: sessionId, tenantId: user.tenantId, userId: user.id, expiresAt });
    return this.issue(user, sessionId, sql);
  }

  private async issue(user: UserRow, sessionId: string, sql: Queryable): Promise<TokenSet> {
    const refreshId = randomUUID();
    const ttl = this.config.refreshTokenTtlSec;
    await insertRefreshToken(sql, { id: refreshId, sessionId, expiresAt: new Date(Date.now() + ttl * 1000) });
    const base = { iss: this.config.issuer, sub: String(user.id), tid: user.tenantId, sid: sessionId };
    const access = this.config.accessTokenTtlSec;
    return {
      accessToken: signJwt({ ...base, typ: 'access' }, this.key, access),
      idToken: signJwt({ ...base, typ: 'id', email: user.email, name: user.name }, this.key, access),
      refreshToken: signJwt({ ...base, typ: 'refresh', jti: refreshId }, this.key, ttl),
      expiresIn: access,
      tokenType: 'Bearer',
    };
  }

  /** Rotates a refresh token into a new token set; `expectTenant` is the X-API-KEY's tenant, if any. */
  async refresh(refreshToken: string, expectTenant: number | null): Promise<TokenSet> {
    const claims = verifyJwt(refreshToken, this.key, { issuer: this.config.issuer, type: 'refresh' });
    if (expectTenant !== null && claims.tid !== expectTenant) {
      throw new AppError('FORBIDDEN', 'The API key and the refresh token belong to different tenants');
    }
    const result = await this.sql.begin(async (tx) => {
      const used = await useRefreshToken(tx, claims.jti);
      if (used === undefined) return { error: 'unknown refresh token' } as const;
      if (used.outcome === 'reused') {
        await revokeSession(tx, used.sessionId, 'refresh token reused');
        return { error: 'refresh token was already used; the session has been revoked', sessionId: used.sessionId } as const;
      }
      if (used.outcome === 'expired') return { error: 'refresh token expired' } as const;
      const session = await findSession(tx, used.sessionId);
      if (session === undefined || session.revokedAt !== null || session.expiresAt <= new Date()
        || session.tenantId !== claims.tid || String(session.userId) !== claims.sub) {
        return { error: 'session is no longer valid' } as const;
      }
      const user = await findUser(tx, session.userId);
      if (user === undefined) return { error: 'user no longer exists' } as const;
      return { tokens: await this.issue(user, session.id, tx) } as const;
    });
    if ('error' in result) {
      if ('sessionId' in result && result.sessionId !== undefined) {
        // The access tokens of a leaked family must stop now, not when this instance's cache expires.
        this.sessions.forgetSessions([result.sessionId]);
        this.log.warn('refresh token reuse detected; session revoked', { sessionId: result.sessionId, tenant: claims.tid });
      }
      throw new AppError('INVALID_TOKEN', `The refresh token is invalid: ${result.error}`);
    }
    return result.tokens;
  }
}
