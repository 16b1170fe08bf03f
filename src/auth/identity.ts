import { createHash, randomUUID } from 'node:crypto';
import type { Queryable, Sql } from '../db/connect.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import { ipRateKey } from '../ratelimit/client-key.ts';
import type { RateLimits } from '../ratelimit/limiter.ts';
import { ENVIRONMENTS, type Environment } from '../environments.ts';
import { generateApiKey, maskApiKey } from './api-keys.ts';
import type { Authenticator } from './authenticator.ts';
import type { PasswordHasher } from './passwords.ts';
import {
  deleteExpiredSessions, findTenant, findUser, findUserByEmail, insertApiKey, insertTenant, insertUser, listApiKeys, revokeApiKey, updateApiKeyScope,
  revokeSession, revokeUserSessions, updatePasswordHash, type ApiKeyRow, type TenantRow, type UserRow,
} from './queries.ts';
import type { TokenIssuer, TokenSet } from './tokens.ts';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  environments: Environment[];
  readOnly: boolean;
}

/** What a new key may do; POST /api/keys defaults to the two test environments, read-write. */
export interface NewKeyScope {
  environments: readonly Environment[];
  readOnly: boolean;
}

/** How long an address an account signed in from stays known-good for it. */
const KNOWN_GOOD_TTL_MS = 30 * 86_400_000;
/** (account, address) pairs remembered per instance; older ones are forgotten first. */
const KNOWN_GOOD_MAX = 200_000;

/** The fixed-size digest an email is known by in memory (buckets, known-good addresses, the hashing queue). */
function accountKey(email: string): string {
  return createHash('sha256').update(email).digest('base64url');
}

export const DEFAULT_KEY_ENVIRONMENTS: readonly Environment[] = ['TesteCF', 'CerteCF'];

export interface NewTenant {
  tenant: { id: number; name: string; rnc: string };
  user: { id: number; email: string; name: string };
  apiKey: ApiKeyView & { key: string };
}

function keyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: maskApiKey(row.publicId),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    // In the fixed order of ENVIRONMENTS, whatever order the key was created with.
    environments: ENVIRONMENTS.filter((e) => row.environments.includes(e)),
    readOnly: row.readOnly,
  };
}

/** Tenants, users, passwords and API keys: everything identity does apart from HTTP. */
export class IdentityService {
  private readonly sql: Sql;
  private readonly hasher: PasswordHasher;
  private readonly tokens: TokenIssuer;
  private readonly authenticator: Authenticator;
  private readonly log: Logger;
  private readonly limits: RateLimits | null;
  /** `${account} ${address}` of recent right passwords: the owner's usual places (this instance's memory). */
  private readonly knownGood = new TtlCache<true>(KNOWN_GOOD_TTL_MS, KNOWN_GOOD_MAX);

  constructor(
    sql: Sql,
    hasher: PasswordHasher,
    tokens: TokenIssuer,
    authenticator: Authenticator,
    log: Logger,
    /** The per-account sign-in budget (signInAccount scope); null where nobody signs in (the CLI). */
    limits: RateLimits | null = null,
  ) {
    this.sql = sql;
    this.hasher = hasher;
    this.tokens = tokens;
    this.authenticator = authenticator;
    this.log = log;
    this.limits = limits;
  }

  /** Creates a tenant with its first user and API key, in one transaction. */
  async createTenant(input: { name: string; rnc: string; email: string; password: string; userName?: string; environments?: readonly Environment[] }): Promise<NewTenant> {
    const email = input.email.toLowerCase();
    const passwordHash = await this.hasher.hash(input.password, { tenant: 'registration', account: accountKey(email) });
    try {
      return await this.sql.begin(async (tx) => {
        const tenant = await insertTenant(tx, { name: input.name, rnc: input.rnc });
        const user = await insertUser(tx, { tenantId: tenant.id, email, name: input.userName ?? input.name, passwordHash });
        const key = await this.insertKey(tx, tenant.id, user.id, 'Default key', { environments: input.environments ?? DEFAULT_KEY_ENVIRONMENTS, readOnly: false });
        this.log.info('tenant created', { tenant: tenant.id, user: user.id });
        return {
          tenant: { id: tenant.id, name: tenant.name, rnc: tenant.rnc },
          user: { id: user.id, email: user.email, name: user.name },
          apiKey: key,
        };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_key')) throw new AppError('EMAIL_ALREADY_REGISTERED');
      if (isUniqueViolation(err, 'tenants_rnc_key')) throw new AppError('RNC_ALREADY_REGISTERED');
      throw err;
    }
  }

  /**
   * Checks email and password and opens a session. Unknown emails take as long as known
   * ones (PasswordHasher.verifyAgainstDummy), so response time does not reveal which exist.
   *
   * Each attempt takes a token from the account's bucket, whatever the client address, so
   * guesses spread over many addresses are limited all the same; it is taken before the
   * lookup and alike for unknown emails, so a 429 tells nothing either. A right password
   * gives its token back: only failures count, and a user who signs in often is not
   * refused. An attempt from an address the account signed in from with its right password
   * within 30 days (its /64 for IPv6) takes no token: whoever fails on an email from
   * elsewhere delays only attempts from elsewhere (429 with Retry-After), never its owner at
   * their usual place. The hash itself waits its tenant's turn (PasswordHasher).
   */
  async login(email: string, password: string, expectTenant: number | null, clientIp: string | null = null): Promise<TokenSet> {
    const normalised = email.trim().toLowerCase();
    // A digest, not the email: a bucket key of fixed size whatever was sent, and no addresses held in memory.
    const account = accountKey(normalised);
    const place = clientIp === null ? null : `${account} ${ipRateKey(clientIp)}`;
    const knownGood = place !== null && this.knownGood.get(place) !== undefined;
    const taken = knownGood ? null : (this.limits?.consumeAccount('signInAccount', account) ?? null);
    const user = await findUserByEmail(this.sql, normalised);
    const owner = { tenant: `t${user?.tenantId ?? 0}`, account };
    const ok = user === undefined
      ? await this.hasher.verifyAgainstDummy(password)
      : await this.hasher.verify(password, user.passwordHash, owner);
    if (user === undefined || !ok) throw new AppError('INVALID_CREDENTIALS', 'Email or password is wrong');
    if (taken !== null) this.limits?.refund(taken);
    if (place !== null) this.knownGood.set(place, true);
    if (expectTenant !== null && expectTenant !== user.tenantId) {
      throw new AppError('FORBIDDEN', 'The API key and the user belong to different tenants');
    }
    if (this.hasher.needsRehash(user.passwordHash)) {
      await updatePasswordHash(this.sql, user.id, await this.hasher.hash(password, owner), false);
    }
    return this.tokens.startSession(user);
  }

  /** Revokes the session a bearer token belongs to (sign out). */
  /** Deletes sessions past their lifetime; answers how many. */
  purgeExpiredSessions(): Promise<number> {
    return deleteExpiredSessions(this.sql);
  }

  /** The tenant with this id, or undefined. */
  tenant(tenantId: number): Promise<TenantRow | undefined> {
    return findTenant(this.sql, tenantId);
  }

  async logout(sessionId: string): Promise<void> {
    await revokeSession(this.sql, sessionId, 'signed out');
    this.authenticator.forgetSessions([sessionId]);
  }

  /** Changes the password, revokes every session of the user, and opens a fresh one. */
  async changePassword(userId: number, current: string, next: string): Promise<TokenSet> {
    const user = await findUser(this.sql, userId);
    const owner = { tenant: `t${user?.tenantId ?? 0}`, account: `user ${userId}` };
    if (user === undefined || !(await this.hasher.verify(current, user.passwordHash, owner))) {
      throw new AppError('INVALID_CREDENTIALS', 'The current password is wrong');
    }
    const hash = await this.hasher.hash(next, owner);
    const { revoked, tokens } = await this.sql.begin(async (tx) => {
      await updatePasswordHash(tx, user.id, hash, true);
      const revoked = await revokeUserSessions(tx, user.id, 'password changed');
      return { revoked, tokens: await this.tokens.startSession(user, tx) };
    });
    this.authenticator.forgetSessions(revoked);
    this.log.info('password changed; sessions revoked', { user: user.id, sessions: revoked.length });
    return tokens;
  }

  async account(userId: number): Promise<{ user: Omit<UserRow, 'passwordHash'>; tenant: TenantRow }> {
    const user = await findUser(this.sql, userId);
    const tenant = user === undefined ? undefined : await findTenant(this.sql, user.tenantId);
    if (user === undefined || tenant === undefined) throw new AppError('NOT_FOUND', 'Account not found');
    const { passwordHash: _, ...rest } = user;
    return { user: rest, tenant };
  }

  async createApiKey(tenantId: number, userId: number | null, name: string, scope: NewKeyScope = { environments: DEFAULT_KEY_ENVIRONMENTS, readOnly: false }): Promise<ApiKeyView & { key: string }> {
    return this.insertKey(this.sql, tenantId, userId, name, scope);
  }

  async listApiKeys(tenantId: number): Promise<ApiKeyView[]> {
    return (await listApiKeys(this.sql, tenantId)).map(keyView);
  }

  async revokeApiKey(tenantId: number, id: string): Promise<ApiKeyView> {
    const row = await revokeApiKey(this.sql, tenantId, id);
    if (row === undefined) throw new AppError('NOT_FOUND', 'API key not found');
    this.authenticator.forgetApiKey(row.publicId);
    return keyView(row);
  }

  /** Changes what a key may do; fields left out keep their value. Effective on other instances within CREDENTIAL_CACHE_MS. */
  async updateApiKeyScope(tenantId: number, id: string, change: Partial<NewKeyScope>): Promise<ApiKeyView> {
    const current = (await listApiKeys(this.sql, tenantId)).find((k) => k.id === id);
    if (current === undefined) throw new AppError('NOT_FOUND', 'API key not found');
    const row = await updateApiKeyScope(this.sql, tenantId, id, { environments: change.environments ?? current.environments, readOnly: change.readOnly ?? current.readOnly });
    if (row === undefined) throw new AppError('NOT_FOUND', 'API key not found');
    this.authenticator.forgetApiKey(row.publicId);
    return keyView(row);
  }

  private async insertKey(sql: Queryable, tenantId: number, userId: number | null, name: string, scope: NewKeyScope): Promise<ApiKeyView & { key: string }> {
    const generated = generateApiKey();
    const row = await insertApiKey(sql, { id: randomUUID(), tenantId, publicId: generated.publicId, keyHash: generated.hash, name, createdBy: userId, ...scope });
    return { ...keyView(row), key: generated.key };
  }
}
