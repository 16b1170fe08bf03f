import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { S, envelope } from '../http/openapi.ts';
import { created, ok } from '../http/reply.ts';
import { envOf, tenantOf, uuidParam } from '../http/params.ts';
import { ENVIRONMENTS, parseEnvironment, type Environment } from '../environments.ts';
import { DEFAULT_KEY_ENVIRONMENTS } from './identity.ts';
import { header, type RequestContext, type Route } from '../http/types.ts';
import { EMAIL, Input, RNC } from '../lib/input.ts';
import { taxIdProblem } from '../ecf/tax-id.ts';
import type { Authenticator } from './authenticator.ts';
import type { IdentityService } from './identity.ts';
import { NEW_API_KEY, TOKEN_RESPONSE } from './schemas.ts';
import type { TokenIssuer } from './tokens.ts';

export interface AuthRouteDeps {
  config: Config;
  identity: IdentityService;
  tokens: TokenIssuer;
  authenticator: Authenticator;
}

export const PASSWORD_RULE = { min: 10, max: 256, trim: false } as const;

const ERR = (description: string) => ({ description, schema: S.ref('ErrorEnvelope') });
// Every route that hashes a password can meet a full scrypt queue (SCRYPT_MAX_QUEUE).
const HASHING_503 = ERR('SERVICE_UNAVAILABLE: too many password hashes are waiting (Retry-After: 1), or the database is unreachable; retry later.');
const utf8 = new TextDecoder('utf-8', { fatal: true });
const CONTROL = /\p{Cc}/u;

/** Form B: "Basic base64(email:password)". Anything malformed is 401 INVALID_CREDENTIALS. */
function basicCredentials(value: string): { email: string; password: string } {
  const m = /^Basic +([A-Za-z0-9+/]+={0,2})\s*$/i.exec(value);
  if (m?.[1] === undefined) throw new AppError('INVALID_CREDENTIALS', 'The Authorization header must be "Basic base64(email:password)"');
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(m[1], 'base64'));
  } catch {
    throw new AppError('INVALID_CREDENTIALS', 'The Basic credentials are not valid UTF-8');
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new AppError('INVALID_CREDENTIALS', 'The Basic credentials must be email:password');
  const email = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // No email holds a control character, and no stored password a NUL (JSON bodies refuse it);
  // PostgreSQL text cannot hold U+0000 at all, so such credentials would fail in the query.
  if (CONTROL.test(email) || password.includes('\0')) {
    throw new AppError('INVALID_CREDENTIALS', 'The Basic credentials contain control characters');
  }
  return { email, password };
}

/** The tenant of an X-API-KEY sent alongside, which must then match the user's. */
async function optionalKeyTenant(ctx: RequestContext, authenticator: Authenticator): Promise<number | null> {
  const key = header(ctx.headers, 'x-api-key');
  return key === undefined ? null : (await authenticator.verifyApiKey(key)).tenantId;
}

const KEY_ENVIRONMENTS_SCHEMA = { type: 'array', items: { type: 'string', enum: [...ENVIRONMENTS] }, minItems: 1, uniqueItems: true, description: 'Where the key may be used ({env} of the path, matched case-insensitively).' };

/** `environments` of a new key: a non-empty list of known names, without repeats; the default when absent. */
function readEnvironments(v: Input, body: unknown): Environment[] {
  const raw = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).environments : undefined;
  v.has('environments');
  if (raw === undefined) return [...DEFAULT_KEY_ENVIRONMENTS];
  if (!Array.isArray(raw) || raw.length === 0) {
    v.errors.push({ path: 'environments', message: `must be a non-empty list of ${ENVIRONMENTS.join(', ')}` });
    return [];
  }
  const out: Environment[] = [];
  raw.forEach((item: unknown, i) => {
    const env = typeof item === 'string' ? parseEnvironment(item) : null;
    if (env === null) v.errors.push({ path: `environments[${i}]`, message: `is not an environment; use one of ${ENVIRONMENTS.join(', ')}` });
    else if (out.includes(env)) v.errors.push({ path: `environments[${i}]`, message: `repeats ${env}` });
    else out.push(env);
  });
  return out;
}

export function authRoutes(deps: AuthRouteDeps): Route[] {
  const { identity, tokens, authenticator, config } = deps;
  return [
    {
      method: 'POST', path: '/{env}/customer/register', auth: 'none', rateScope: 'publicAuth', body: 'json',
      doc: {
        operationId: 'register', tags: ['Authentication'], summary: 'Create a tenant, its first user and API key',
        description: 'Public sign-up (can be disabled with REGISTRATION_ENABLED=false). The API key is shown only in this response.',
        requestBody: { schema: S.object({ email: S.string({ format: 'email' }), password: S.string({ minLength: 10, maxLength: 256 }), name: S.string({ description: 'Business name.' }), rnc: S.string({ pattern: '^(\\d{9}|\\d{11})$', description: 'RNC (9 digits) or cédula (11 digits) with a valid check digit (422 otherwise).' }) }) },
        responses: {
          '201': { description: 'Created.', schema: envelope(S.object({ tenant: S.object({ id: S.int(), name: S.string(), rnc: S.string() }), user: S.object({ id: S.int(), email: S.string(), name: S.string() }), apiKey: S.ref('NewApiKey') })) },
          '403': { description: 'REGISTRATION_DISABLED.', schema: S.ref('ErrorEnvelope') },
          '409': { description: 'EMAIL_ALREADY_REGISTERED or RNC_ALREADY_REGISTERED.', schema: S.ref('ErrorEnvelope') },
          '422': { description: 'VALIDATION_ERROR.', schema: S.ref('ErrorEnvelope') },
          '503': HASHING_503,
        },
      },
      handler: async (ctx) => {
        if (!config.registrationEnabled) throw new AppError('REGISTRATION_DISABLED');
        const v = new Input(ctx.body);
        const email = v.string('email', { max: 254, pattern: EMAIL, patternMessage: 'must be an email address' });
        const password = v.string('password', PASSWORD_RULE);
        const name = v.string('name', { max: 150 });
        const rnc = v.string('rnc', { max: 11, pattern: RNC, patternMessage: 'must be an RNC (9 digits) or cédula (11 digits)' });
        // DGII refuses documents of an RNC whose check digit is wrong: a typo is caught here.
        const rncProblem = RNC.test(rnc) ? taxIdProblem(rnc) : undefined;
        if (rncProblem !== undefined) v.errors.push({ path: 'rnc', message: `must be a valid RNC or cédula: ${rncProblem}` });
        v.done();
        // The first key acts only where the tenant registered; POST /api/keys makes others.
        return created(await identity.createTenant({ name, rnc, email, password, environments: [envOf(ctx)] }));
      },
    },
    {
      method: 'POST', path: '/{env}/customer/authentication', auth: 'none', rateScope: 'publicAuth', body: 'optionalJson',
      doc: {
        operationId: 'authenticate', tags: ['Authentication'], summary: 'Sign in with email and password',
        description: 'Form A: JSON body { email, password }. Form B: Authorization: Basic base64(email:password) and an empty body. X-API-KEY may accompany either form; it must then belong to the same tenant.',
        headers: { 'X-API-KEY': { description: 'Optional API key of the same tenant.', schema: S.string() }, Authorization: { description: 'Form B: Basic base64(email:password).', schema: S.string() } },
        requestBody: { required: false, schema: S.object({ email: S.string(), password: S.string() }) },
        responses: {
          '200': TOKEN_RESPONSE,
          '401': ERR('INVALID_CREDENTIALS: wrong email or password, or an Authorization header that is not Basic base64(email:password).'),
          '403': ERR('INVALID_API_KEY, or FORBIDDEN when the X-API-KEY belongs to another tenant than the user.'),
          '422': ERR('VALIDATION_ERROR: Form A without email or password, or with other fields.'),
          '429': { ...ERR('RATE_LIMITED: too many sign-ins from this address (publicAuth), or too many failed ones for this email from any address (signInAccount; answered alike whether the email exists or not, and a successful sign-in gives its attempt back).'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: S.int() } } },
          '503': HASHING_503,
        },
      },
      handler: async (ctx) => {
        const authorization = header(ctx.headers, 'authorization');
        let credentials: { email: string; password: string };
        if (authorization !== undefined) {
          credentials = basicCredentials(authorization);
        } else {
          const v = new Input(ctx.body);
          credentials = { email: v.string('email', { max: 254 }), password: v.string('password', { max: 256, trim: false }) };
          v.done();
        }
        const expectTenant = await optionalKeyTenant(ctx, authenticator);
        return ok(await identity.login(credentials.email, credentials.password, expectTenant, ctx.clientIp));
      },
    },
    {
      method: 'POST', path: '/{env}/customer/refresh', auth: 'none', rateScope: 'publicAuth', body: 'json',
      doc: {
        operationId: 'refreshTokens', tags: ['Authentication'], summary: 'Exchange a refresh token for a new token set',
        description: 'The refresh token is single-use: the answer carries its successor. Presenting an already used refresh token revokes the whole session.',
        headers: { 'X-API-KEY': { description: 'Optional API key of the same tenant.', schema: S.string() } },
        requestBody: { schema: S.object({ refreshToken: S.string() }) },
        responses: {
          '200': TOKEN_RESPONSE,
          '401': ERR('INVALID_TOKEN: the refresh token is malformed, expired or already used (which revokes its session), or its session was signed out or revoked.'),
          '403': ERR('INVALID_API_KEY, or FORBIDDEN when the X-API-KEY belongs to another tenant than the token.'),
          '422': ERR('VALIDATION_ERROR.'),
        },
      },
      handler: async (ctx) => {
        const v = new Input(ctx.body);
        const refreshToken = v.string('refreshToken', { max: 4096 });
        v.done();
        return ok(await tokens.refresh(refreshToken, await optionalKeyTenant(ctx, authenticator)));
      },
    },
    {
      method: 'POST', path: '/{env}/customer/logout', auth: 'bearer', body: 'optionalJson',
      doc: {
        operationId: 'logout', tags: ['Authentication'], summary: 'Sign out: revoke the session of the bearer token',
        description: 'The access token and every refresh token of its session stop working.',
        responses: { '200': { description: 'Signed out.', schema: envelope(S.object({ signedOut: S.bool() })) } },
      },
      handler: async (ctx) => {
        if (ctx.principal?.sessionId) await identity.logout(ctx.principal.sessionId);
        return ok({ signedOut: true });
      },
    },
    {
      method: 'GET', path: '/api/whoami', auth: 'apiKeyOrBearer',
      doc: {
        operationId: 'whoami', tags: ['Account'], summary: 'Check credentials: the tenant (and user or key) they name',
        description: 'Answers from the credentials alone, so an ERP can test its API key without side effects.',
        responses: { '200': { description: 'Who is calling.', schema: envelope(S.object({ tenantId: S.int(), userId: S.nullable(S.int()), apiKeyId: S.nullable(S.uuid()) })) } },
      },
      handler: async (ctx) => ok({ tenantId: tenantOf(ctx), userId: ctx.principal?.userId ?? null, apiKeyId: ctx.principal?.apiKeyId ?? null }),
    },
    {
      method: 'GET', path: '/api/account', auth: 'bearer',
      doc: {
        operationId: 'getAccount', tags: ['Account'], summary: 'The signed-in user and their tenant',
        responses: { '200': { description: 'The account.', schema: envelope(S.object({ user: S.object({ id: S.int(), tenantId: S.int(), email: S.string(), name: S.string(), createdAt: S.dateTime() }), tenant: S.object({ id: S.int(), name: S.string(), rnc: S.string(), createdAt: S.dateTime() }) })) } },
      },
      handler: async (ctx) => ok(await identity.account(ctx.principal?.userId ?? 0)),
    },
    {
      method: 'POST', path: '/api/account/password', auth: 'bearer', rateScope: 'sensitive', body: 'json',
      doc: {
        operationId: 'changePassword', tags: ['Account'], summary: 'Change the password',
        description: 'Revokes every session of the user (all refresh tokens) and answers a token set for a new session.',
        requestBody: { schema: S.object({ currentPassword: S.string(), newPassword: S.string({ minLength: 10, maxLength: 256 }) }) },
        responses: {
          '200': TOKEN_RESPONSE,
          '401': ERR('INVALID_CREDENTIALS: the current password is wrong; or UNAUTHORIZED, INVALID_TOKEN or TOKEN_EXPIRED for the bearer token.'),
          '422': ERR('VALIDATION_ERROR: a new password of fewer than 10 or more than 256 characters, or a missing field.'),
          '503': HASHING_503,
        },
      },
      handler: async (ctx) => {
        const v = new Input(ctx.body);
        const current = v.string('currentPassword', { max: 256, trim: false });
        const next = v.string('newPassword', PASSWORD_RULE);
        v.done();
        return ok(await identity.changePassword(ctx.principal?.userId ?? 0, current, next));
      },
    },
    {
      method: 'GET', path: '/api/keys', auth: 'bearer',
      doc: { operationId: 'listApiKeys', tags: ['API keys'], summary: 'List the tenant\'s API keys (never their secrets)', responses: { '200': { description: 'Keys, newest first.', schema: envelope(S.array(S.ref('ApiKey'))) } } },
      handler: async (ctx) => ok(await identity.listApiKeys(tenantOf(ctx))),
    },
    {
      method: 'POST', path: '/api/keys', auth: 'bearer', body: 'optionalJson',
      doc: {
        operationId: 'createApiKey', tags: ['API keys'], summary: 'Create an API key (shown once)',
        description: 'A key acts only in its `environments` (default TesteCF and CerteCF: production, eCF, must be asked for) and, with `"readOnly": true`, makes only GET requests. A request outside its scope is 403 FORBIDDEN with a message saying why.',
        requestBody: {
          required: false,
          schema: S.object({
            name: S.string({ maxLength: 100 }),
            environments: { ...KEY_ENVIRONMENTS_SCHEMA, default: [...DEFAULT_KEY_ENVIRONMENTS] },
            readOnly: { type: 'boolean', default: false, description: 'Refuse every write (any method but GET).' },
          }, []),
        },
        responses: { '201': { description: 'The new key; `key` is never shown again.', schema: envelope(NEW_API_KEY) }, '422': { description: 'VALIDATION_ERROR: a name over 100 characters, or environments empty, not a list, or naming an unknown environment.', schema: S.ref('ErrorEnvelope') } },
      },
      handler: async (ctx) => {
        const v = new Input(ctx.body);
        const name = v.optionalString('name', { max: 100 }) ?? 'API key';
        const readOnly = v.boolean('readOnly', false);
        const environments = readEnvironments(v, ctx.body);
        v.done();
        return created(await identity.createApiKey(tenantOf(ctx), ctx.principal?.userId ?? null, name, { environments, readOnly }));
      },
    },
    {
      method: 'PATCH', path: '/api/keys/{id}', auth: 'bearer', body: 'json',
      doc: {
        operationId: 'updateApiKeyScope', tags: ['API keys'], summary: 'Change where an API key acts and whether it may write',
        description: 'Fields left out keep their value. Other instances apply the change within CREDENTIAL_CACHE_MS.',
        requestBody: { schema: S.object({ environments: KEY_ENVIRONMENTS_SCHEMA, readOnly: S.bool() }, []) },
        responses: {
          '200': { description: 'The key with its new scope.', schema: envelope(S.ref('ApiKey')) },
          '422': { description: 'VALIDATION_ERROR: environments empty, not a list, or naming an unknown environment.', schema: S.ref('ErrorEnvelope') },
        },
      },
      handler: async (ctx) => {
        const v = new Input(ctx.body);
        const readOnly = v.has('readOnly') ? v.boolean('readOnly', false) : undefined;
        const given = typeof ctx.body === 'object' && ctx.body !== null && Object.hasOwn(ctx.body, 'environments');
        const environments = given ? readEnvironments(v, ctx.body) : undefined;
        v.done();
        return ok(await identity.updateApiKeyScope(tenantOf(ctx), uuidParam(ctx, 'id'), { ...(environments === undefined ? {} : { environments }), ...(readOnly === undefined ? {} : { readOnly }) }));
      },
    },
    {
      method: 'DELETE', path: '/api/keys/{id}', auth: 'bearer',
      doc: { operationId: 'revokeApiKey', tags: ['API keys'], summary: 'Revoke an API key', responses: { '200': { description: 'The revoked key.', schema: envelope(S.ref('ApiKey')) } } },
      handler: async (ctx) => ok(await identity.revokeApiKey(tenantOf(ctx), uuidParam(ctx, 'id'))),
    },
  ];
}
