import { randomUUID } from 'node:crypto';
import { ECF_TIPOS } from '../../../src/ecf/validation/index.ts';
import { ecfFor } from '../../helpers/documents.ts';
import { deepJson, exampleFor, hostileValue, mutate, serialize, type Json } from './json-mutations.ts';
import type { Prng } from './prng.ts';

// The malformed-request generator: each call draws one request, as raw bytes, from a table
// of abuse kinds. It reads the routes and their JSON schemas from GET /openapi.json, so new
// endpoints are fuzzed without editing this file. Requests name `Connection: close` where
// they are well-formed enough to carry headers, so every answer ends with the connection.

export interface FuzzRoute {
  method: string;
  /** OpenAPI path template, e.g. /{env}/documentos-ecf/{internalTrackId}. */
  path: string;
  jsonSchema: Record<string, unknown> | null;
  multipart: boolean;
  secured: boolean;
}

export interface FuzzContext {
  routes: FuzzRoute[];
  components: Record<string, Record<string, unknown>>;
  apiKey: string;
  accessToken: string;
  rnc: string;
  /** Real ids of the tenant (documents, keys...), so some requests reach the handlers' lookups. */
  ids: string[];
}

export interface FuzzRequest {
  kind: string;
  chunks: Buffer[];
  bodyless: boolean;
}

/** Routes and schemas of an OpenAPI 3.1 document. */
export function fuzzRoutes(doc: { paths: Record<string, Record<string, { security?: unknown[]; requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> } }>> }): FuzzRoute[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    jsonSchema: op.requestBody?.content?.['application/json']?.schema ?? null,
    multipart: op.requestBody?.content?.['multipart/form-data'] !== undefined,
    secured: (op.security ?? []).length > 0,
  })));
}

const CRLF = '\r\n';
const METHODS = ['PATCH', 'PUT', 'DELETE', 'TRACE', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL', 'GET', 'POST', 'get', 'G E T', 'FOO'] as const;
const ENVS = ['TesteCF', 'eCF', 'CerteCF', 'tEsTeCf', 'PROD', '', '..', '%00'] as const;
const GARBAGE_SEGMENTS = [
  '..', '%2e%2e', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%2f..%2f..%2fpackage.json', '%252e%252e%252f', '..\\..\\windows', '%00', '%', '%zz', '%c0%af',
  '%ff%fe', '%e2%80%ae', 'ñ', '😀', '%F0%9F%98%80', ' ', '%20', 'a'.repeat(4_000), "'; drop table documents; --", '{id}', '-1', '0', 'null',
  '99999999999999999999', '3b241101-e2bb-4255-8caf-4136c566a96', '3B241101-E2BB-4255-8CAF-4136C566A962',
] as const;
const ASSETS = ['app.js', 'styles.css', 'index.html', '../package.json', '%2e%2e%2fpackage.json', '..%5c..%5cpackage.json', '.env', 'app.js%00.png'] as const;
const BAD_AUTH = [
  'Bearer', 'Bearer ', 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', 'Bearer ' + 'A'.repeat(10_000), 'Basic', 'Basic !!!!',
  'Basic ' + Buffer.from('a:b:c').toString('base64'), 'Basic ' + Buffer.from('a\0@b.c:pw').toString('base64'), 'bearer\ttoken', 'Bearer ey.ey.ey.ey', 'Bearer ñ', 'Digest x', 'Bearer ' + randomUUID(),
] as const;
const BAD_KEYS = ['', 'ecf_sk_', 'ecf_sk_x_y', 'ecf_sk_' + 'A'.repeat(16) + '_' + 'B'.repeat(43), 'ecf_sk_' + 'A'.repeat(500), 'ñ', 'ecf_sk_%00_%00', ' '] as const;
const IDEMPOTENCY_KEYS = ['', ' ', 'a'.repeat(256), 'a'.repeat(10_000), 'ñandú', '\u0001\u0002', 'key\twith\ttabs', '🔑', '"quoted"'] as const;

function fillPath(rng: Prng, ctx: FuzzContext, template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'env') return rng.pick(ENVS);
    if (name === 'asset') return rng.pick(ASSETS);
    if (name === 'rnc') return rng.chance(0.6) ? ctx.rnc : rng.pick(GARBAGE_SEGMENTS);
    if (rng.chance(0.4) && ctx.ids.length > 0) return rng.pick(ctx.ids);
    return rng.chance(0.3) ? randomUUID() : rng.pick(GARBAGE_SEGMENTS);
  });
}

function credentials(rng: Prng, ctx: FuzzContext, route: FuzzRoute): string[] {
  // Sessions are not ended by the generator: the rest of the run needs them.
  if (route.path.endsWith('/logout') || rng.chance(0.15)) return [];
  return rng.chance(0.5) ? [`X-API-KEY: ${ctx.apiKey}`] : [`Authorization: Bearer ${ctx.accessToken}`];
}

function bodyFor(rng: Prng, ctx: FuzzContext, route: FuzzRoute): Json {
  if (route.path.endsWith('/documentos-ecf') && route.method === 'POST') return ecfFor(ctx.rnc, rng.pick(ECF_TIPOS)) as unknown as Json;
  return exampleFor(rng, route.jsonSchema ?? {}, ctx.components);
}

function request(method: string, target: string, headers: string[], body: Buffer | string = '', contentLength = true): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const all = ['Host: 127.0.0.1', 'Connection: close', ...headers, ...(contentLength && b.length > 0 ? [`Content-Length: ${b.length}`] : [])];
  return Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1${CRLF}${all.join(CRLF)}${CRLF}${CRLF}`, 'latin1'), b]);
}

type Builder = (rng: Prng, ctx: FuzzContext) => { chunks: Buffer[]; bodyless?: boolean };

const jsonRoutes = (ctx: FuzzContext) => ctx.routes.filter((r) => r.jsonSchema !== null);

function jsonRequest(rng: Prng, ctx: FuzzContext, body: (route: FuzzRoute) => Buffer | string, extra: string[] = []) {
  const route = rng.pick(jsonRoutes(ctx));
  return { chunks: [request(route.method, fillPath(rng, ctx, route.path), ['Content-Type: application/json', ...credentials(rng, ctx, route), ...extra], body(route))] };
}

const KINDS: readonly (readonly [number, string, Builder])[] = [
  [5, 'random bytes', (rng) => ({ chunks: [Buffer.concat([rng.bytes(1 + rng.int(300)), Buffer.from(rng.chance(0.7) ? '\r\n\r\n' : '')])] })],
  [5, 'random request line', (rng) => ({ chunks: [Buffer.concat([Buffer.from(rng.pick(METHODS)), rng.bytes(rng.int(40)), Buffer.from(` /${rng.pick(GARBAGE_SEGMENTS)} HTTP/${rng.pick(['1.1', '1.0', '2.0', '0.9', '1.1.1', 'x'])}\r\n\r\n`, 'latin1')])] })],
  [8, 'wrong method', (rng, ctx) => {
    const route = rng.pick(ctx.routes);
    const method = rng.pick(METHODS);
    return { chunks: [request(method, fillPath(rng, ctx, route.path), credentials(rng, ctx, route))], bodyless: method === 'HEAD' };
  }],
  [22, 'json with wrong types', (rng, ctx) => jsonRequest(rng, ctx, (route) => {
    let body = bodyFor(rng, ctx, route);
    for (let i = 1 + rng.int(3); i > 0; i--) body = mutate(rng, body);
    return serialize(body, rng.chance(0.1));
  })],
  [5, 'json with huge numbers', (rng, ctx) => jsonRequest(rng, ctx, (route) => {
    const body = bodyFor(rng, ctx, route);
    const text = serialize(body).replace(/(?<=[:[,])(-?\d+(\.\d+)?)(?=[,\]}])/g, () => rng.pick(['1e999', '-1e999', '123456789012345678901234567890', '1e-400', '-0', '18446744073709551616.5']));
    return text;
  })],
  [4, 'deep json', (rng, ctx) => jsonRequest(rng, ctx, () => serialize(deepJson(rng, rng.pick([63, 64, 65, 1_000, 100_000, 400_000]))))],
  [6, 'unicode everywhere', (rng, ctx) => jsonRequest(rng, ctx, (route) => {
    const body = bodyFor(rng, ctx, route);
    return serialize(body).replace(/"[^"\\]*"/g, (s) => (rng.chance(0.3) ? JSON.stringify(`${s.slice(1, -1)}${rng.pick(['😀', 'ñ', '\u202e', '\u0000', '\ufeff', 'e\u0301', '𝕏𝕐'])}`) : s));
  }, [`X-Request-Id: ${rng.pick(['ñ', 'a'.repeat(300), 'ok-id', '😀'])}`])],
  [4, 'invalid utf-8', (rng, ctx) => jsonRequest(rng, ctx, () => Buffer.concat([Buffer.from('{"name":"'), Buffer.from(rng.pick([[0xc3, 0x28], [0xff, 0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x28, 0xa1]])), Buffer.from('"}')]))],
  [3, 'huge header', (rng, ctx) => {
    const route = rng.pick(ctx.routes);
    return { chunks: [request('GET', fillPath(rng, ctx, route.path), [`X-Filler: ${'a'.repeat(rng.pick([8_000, 16_500, 40_000, 100_000]))}`])] };
  }],
  [4, 'duplicated headers', (rng, ctx) => {
    const route = rng.pick(ctx.routes);
    const name = rng.pick(['X-API-KEY', 'Authorization', 'Content-Type', 'Host', 'Idempotency-Key', 'X-Request-Id', 'Transfer-Encoding', 'Content-Length', 'Connection']);
    const values = [ctx.apiKey, `Bearer ${ctx.accessToken}`, 'application/json', 'chunked', '0', '5', 'close', 'keep-alive', 'x'];
    const headers = Array.from({ length: rng.pick([2, 3, 50, 500]) }, () => `${name}: ${rng.pick(values)}`);
    return { chunks: [request(route.method, fillPath(rng, ctx, route.path), headers, rng.chance(0.5) ? '{}' : '')] };
  }],
  [4, 'invalid headers', (rng, ctx) => {
    const route = rng.pick(ctx.routes);
    const bad = rng.pick(['Bad Header: x', 'X-Null: a\u0000b', 'X-Del: \u007f', ' X-Leading-Space: 1', 'X-Fold: a\r\n continued', 'NoColon', ': empty-name', 'X-Ctl: \u0001', 'Content-Type: application/json; charset=latin1', 'Content-Type: application/json; charset="utf-8', 'Content-Type: ', 'Expect: 100-continue', 'Upgrade: websocket', 'X-Ñ: 1', 'X-Lf: a\nb']);
    return { chunks: [request(route.method, fillPath(rng, ctx, route.path), [bad, ...credentials(rng, ctx, route)], '{}')] };
  }],
  [4, 'bad content-length', (rng, ctx) => {
    const route = rng.pick(jsonRoutes(ctx));
    const body = '{"name":"x"}';
    const length = rng.pick(['-1', 'abc', '1, 2', '99999999999999999999', '0x10', ' 12', '12 ', '+12', '1e3', '', '0', '5', String(body.length)]);
    return { chunks: [request(route.method, fillPath(rng, ctx, route.path), ['Content-Type: application/json', `Content-Length: ${length}`, ...credentials(rng, ctx, route)], body, false)] };
  }],
  [4, 'chunked garbage', (rng, ctx) => {
    const route = rng.pick(jsonRoutes(ctx));
    const body = rng.pick(['zz\r\n{}\r\n0\r\n\r\n', '-1\r\n{}\r\n0\r\n\r\n', 'ffffffffffffffffff\r\n{}\r\n', '2;ext="\u0000"\r\n{}\r\n0\r\n\r\n', '2\r\n{}0\r\n\r\n', '2\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n', '1000000\r\n{}\r\n0\r\n\r\n', '2\n{}\n0\n\n', '0\r\n\r\n']);
    const te = rng.pick(['Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: chunked, gzip', 'Transfer-Encoding: xchunked', 'Transfer-Encoding:  chunked ']);
    return { chunks: [request(route.method, fillPath(rng, ctx, route.path), ['Content-Type: application/json', te, ...(rng.chance(0.3) ? ['Content-Length: 4'] : []), ...credentials(rng, ctx, route)], body, false)] };
  }],
  [4, 'absurd idempotency key', (rng, ctx) => ({
    chunks: [request('POST', '/TesteCF/documentos-ecf', ['Content-Type: application/json', `X-API-KEY: ${ctx.apiKey}`, `Idempotency-Key: ${rng.pick(IDEMPOTENCY_KEYS)}`], serialize(rng.chance(0.5) ? (ecfFor(ctx.rnc) as unknown as Json) : hostileValue(rng)))],
  })],
  [6, 'malformed credentials', (rng, ctx) => {
    // Sign-in takes Basic credentials without being a secured route.
    const route = rng.pick(ctx.routes.filter((r) => r.secured || r.path.endsWith('/customer/authentication')));
    const header = rng.chance(0.5) ? `Authorization: ${rng.pick(BAD_AUTH)}` : `X-API-KEY: ${rng.pick(BAD_KEYS)}`;
    return { chunks: [request(route.method, fillPath(rng, ctx, route.path), [header, ...(rng.chance(0.3) ? [`X-API-KEY: ${ctx.apiKey}`] : [])], route.jsonSchema === null ? '' : '{}')] };
  }],
  [4, 'path traversal', (rng) => ({
    chunks: [request('GET', rng.pick(['/dashboard/../../../../etc/passwd', '/dashboard/%2e%2e/%2e%2e/package.json', '/dashboard/..%2f..%2fpackage.json', '/dashboard/%252e%252e%252fpackage.json', '/dashboard\\..\\package.json', '/api/keys/..', '/TesteCF/documentos-ecf/../../api/keys', '//etc/passwd', '/./././healthz', '/healthz/', '/HEALTHZ', '/' + '../'.repeat(500), '/dashboard/%00', '/openapi.json?../../', 'http://evil.example/healthz', '*', '/a'.repeat(3_000)]), [])],
  })],
  [4, 'percent-encoding garbage', (rng, ctx) => {
    const route = rng.pick(ctx.routes);
    const query = rng.pick(['?%', '?%zz=1', '?a=%ff%fe', '?pageSize=%00', '?estado=%E2%80%AE', '?cursor=' + '%41'.repeat(2_000), '?' + 'a=1&'.repeat(2_000), '?pageSize=1e999', '?pageSize=-1', '?desde=31-02-2024', '?tipo=31&tipo=32', '?__proto__=1', '?status=failed&status=pending']);
    return { chunks: [request('GET', fillPath(rng, ctx, route.path) + query, credentials(rng, ctx, route))] };
  }],
  [3, 'multipart garbage', (rng, ctx) => {
    const route = rng.pick(ctx.routes.filter((r) => r.multipart));
    const boundary = rng.pick(['b', 'x'.repeat(80), '', '"quoted"']);
    const body = rng.pick([`--${boundary}\r\nContent-Disposition: form-data; name="xml"; filename="a.xml"\r\n\r\n<ECF>${'<a>'.repeat(5_000)}\r\n--${boundary}--\r\n`, `--${boundary}\r\n\r\n`, rng.bytes(200).toString('latin1'), `--${boundary}\r\nContent-Disposition: form-data; name="xml"\r\n\r\n<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>\r\n--${boundary}--`]);
    return { chunks: [request('POST', fillPath(rng, ctx, route.path), [`Content-Type: multipart/form-data; boundary=${boundary}`, `Authorization: Bearer ${rng.pick(['x', ctx.accessToken])}`], Buffer.from(body, 'latin1'))] };
  }],
  [5, 'well-formed', (rng, ctx) => ({
    chunks: [request('GET', rng.pick(['/healthz', '/readyz', '/openapi.json', '/TesteCF/documentos-ecf?pageSize=2', '/api/whoami', '/api/webhooks/deliveries']), [`X-API-KEY: ${ctx.apiKey}`, `Authorization: Bearer ${ctx.accessToken}`])],
  })],
];

/** The next request of the sequence `rng` determines. */
export function fuzzRequest(rng: Prng, ctx: FuzzContext): FuzzRequest {
  const [, kind, build] = rng.weighted(KINDS.map((k) => [k[0], k] as const));
  const { chunks, bodyless = false } = build(rng, ctx);
  return { kind, chunks, bodyless };
}

