import { ERROR_CODES } from '../errors.ts';
import { ENVIRONMENTS } from '../environments.ts';
import { rateScopeOf, type Route } from './types.ts';

// The OpenAPI 3.1 document is assembled from the route table, so an endpoint cannot exist
// without being described: each route carries its operation, and the parts every route
// shares (path parameters, security, error answers, rate-limit headers) are added here.

export type Schema = { readonly [key: string]: unknown };

export interface ParamDoc {
  description: string;
  schema: Schema;
  required?: boolean;
}

export interface ResponseDoc {
  description: string;
  schema?: Schema;
  contentType?: string;
  headers?: Record<string, { description: string; schema: Schema }>;
}

export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  query?: Record<string, ParamDoc>;
  headers?: Record<string, ParamDoc>;
  requestBody?: { schema: Schema; required?: boolean; contentType?: string; description?: string };
  responses: Record<string, ResponseDoc>;
}

/** { success: true, data: <schema> } */
export function envelope(data: Schema): Schema {
  return { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data } };
}

export const S = {
  string: (extra: Schema = {}): Schema => ({ type: 'string', ...extra }),
  int: (extra: Schema = {}): Schema => ({ type: 'integer', ...extra }),
  bool: (): Schema => ({ type: 'boolean' }),
  dateTime: (): Schema => ({ type: 'string', format: 'date-time' }),
  uuid: (): Schema => ({ type: 'string', format: 'uuid' }),
  nullable: (s: Schema): Schema => ({ oneOf: [s, { type: 'null' }] }),
  array: (items: Schema): Schema => ({ type: 'array', items }),
  object: (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: 'object', properties, required }),
  ref: (name: string): Schema => ({ $ref: `#/components/schemas/${name}` }),
};

const ERROR_ENVELOPE: Schema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES) },
        message: { type: 'string' },
        details: { type: 'array', items: S.object({ path: S.string(), message: S.string() }) },
      },
    },
  },
};

const RATE_HEADERS = {
  RateLimit: { description: 'Remaining quota of this scope (IETF draft-ietf-httpapi-ratelimit-headers).', schema: S.string() },
  'RateLimit-Policy': { description: 'The scope\'s quota and window.', schema: S.string() },
};

function errorResponse(description: string): ResponseDoc {
  return { description, schema: S.ref('ErrorEnvelope') };
}

function commonErrors(route: Route): Record<string, ResponseDoc> {
  const out: Record<string, ResponseDoc> = {};
  const body = route.body ?? 'none';
  if (body === 'json' || body === 'optionalJson') out['400'] = errorResponse('INVALID_JSON: the body is not valid JSON.');
  if (route.auth !== 'none') out['401'] = errorResponse('UNAUTHORIZED, INVALID_TOKEN or TOKEN_EXPIRED.');
  if (route.auth === 'apiKey' || route.auth === 'apiKeyOrBearer') out['403'] = errorResponse('INVALID_API_KEY, or FORBIDDEN when the API key and the token name different tenants.');
  if (/\{/.test(route.path)) out['404'] = errorResponse('NOT_FOUND: unknown environment or resource (another tenant\'s resources are not found either).');
  if (body !== 'none') out['413'] = errorResponse('PAYLOAD_TOO_LARGE.');
  if (body === 'json' || body === 'optionalJson') out['415'] = errorResponse('UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.');
  if (rateScopeOf(route) !== null) {
    out['429'] = { ...errorResponse('RATE_LIMITED: wait for Retry-After seconds.'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: S.int() }, ...RATE_HEADERS } };
  }
  out['500'] = errorResponse('INTERNAL: unexpected error (details are in the server log under the X-Request-Id).');
  out['503'] = errorResponse('SERVICE_UNAVAILABLE: the database is unreachable, or did not answer within the request deadline (HTTP_DEADLINE_MS); retry after Retry-After seconds (with the same Idempotency-Key, where the route takes one).');
  return out;
}

function security(route: Route): Record<string, string[]>[] | undefined {
  switch (route.auth) {
    case 'none': return [];
    case 'apiKey': return [{ ApiKeyAuth: [] }];
    case 'bearer': return [{ BearerAuth: [] }];
    case 'apiKeyOrBearer': return [{ ApiKeyAuth: [] }, { BearerAuth: [] }, { ApiKeyAuth: [], BearerAuth: [] }];
  }
}

function operation(route: Route): Record<string, unknown> {
  const doc = route.doc;
  const parameters: Record<string, unknown>[] = [];
  for (const m of route.path.matchAll(/\{([A-Za-z0-9]+)\}/g)) {
    const name = m[1] as string;
    parameters.push(name === 'env' ? { $ref: '#/components/parameters/Env' } : { name, in: 'path', required: true, schema: S.string() });
  }
  for (const [name, p] of Object.entries(doc.query ?? {})) parameters.push({ name, in: 'query', required: p.required ?? false, description: p.description, schema: p.schema });
  for (const [name, p] of Object.entries(doc.headers ?? {})) parameters.push({ name, in: 'header', required: p.required ?? false, description: p.description, schema: p.schema });

  const responses: Record<string, unknown> = {};
  const scope = rateScopeOf(route);
  for (const [status, r] of Object.entries({ ...commonErrors(route), ...doc.responses })) {
    const headers = { 'X-Request-Id': { description: 'Identifies the request in the server log.', schema: S.string() }, ...(scope !== null && status !== '429' ? RATE_HEADERS : {}), ...r.headers };
    responses[status] = {
      description: r.description,
      headers,
      ...(r.schema === undefined ? {} : { content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }),
    };
  }
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    tags: doc.tags,
    ...(scope === null ? {} : { 'x-rate-limit-scope': scope }),
    ...(route.ipRateScope === undefined ? {} : { 'x-rate-limit-ip-scope': route.ipRateScope }),
    parameters,
    ...(doc.requestBody === undefined ? {} : {
      requestBody: {
        required: doc.requestBody.required ?? true,
        ...(doc.requestBody.description === undefined ? {} : { description: doc.requestBody.description }),
        content: { [doc.requestBody.contentType ?? 'application/json']: { schema: doc.requestBody.schema } },
      },
    }),
    security: security(route),
    responses,
  };
}

/**
 * `webhooks` (OpenAPI 3.1) describes the requests the service makes to its users' URLs, the
 * way `paths` describes the requests it answers.
 */
export function buildOpenApi(
  routes: readonly Route[],
  info: { version: string; serverUrl: string | null; schemas: Record<string, Schema>; webhooks?: Record<string, unknown> },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'e-CF issuing service',
      version: info.version,
      description: 'Issue Dominican electronic fiscal documents (e-CF) to DGII, follow their status, and receive signed webhooks. Every answer is an envelope: { success: true, data } or { success: false, error: { code, message, details? } }. Versioning: info.version is the service\'s release (semantic versioning); the paths carry no version. Within a major version changes are additive only (new paths, optional request fields, response fields, error codes, enum values, webhook events and payload fields, which clients must ignore when unknown); removing or renaming anything, or making it required, waits for a new major version, announced in the release notes and marked deprecated: true here for at least one minor release before. See docs/api.md, "Versioning".',
    },
    // Without PUBLIC_URL the paths are relative to wherever the document was fetched from.
    servers: [info.serverUrl === null ? { url: '/', description: 'This server (set PUBLIC_URL for an absolute URL).' } : { url: info.serverUrl }],
    paths,
    ...(info.webhooks === undefined ? {} : { webhooks: info.webhooks }),
    components: {
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'ecf_sk_<publicId>_<secret>, for server-to-server (ERP) integrations.' },
        BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /{env}/customer/authentication.' },
        BasicAuth: { type: 'http', scheme: 'basic', description: 'Form B of the authentication call: base64(email:password).' },
      },
      parameters: {
        Env: { name: 'env', in: 'path', required: true, description: 'DGII environment, matched case-insensitively.', schema: { type: 'string', enum: [...ENVIRONMENTS] } },
      },
      schemas: { ErrorEnvelope: ERROR_ENVELOPE, ...info.schemas },
    },
  };
}
