import { randomRnc } from './tax-ids.ts';

// A small fetch wrapper for tests: JSON in, JSON (or text) out, headers kept.

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

// Envelope bodies are read loosely in tests: fields are asserted on, not typed.
export type Loose = any;

export async function call<T = Loose>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body: body === undefined || typeof body === 'string' ? body : new Uint8Array(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function client(baseUrl: string, defaults: Record<string, string> = {}) {
  const go = (method: string) => <T = Loose>(path: string, options: RequestOptions = {}) =>
    call<T>(baseUrl, method, path, { ...options, headers: { ...defaults, ...options.headers } });
  return { get: go('GET'), post: go('POST'), put: go('PUT'), delete: go('DELETE'), patch: go('PATCH') };
}

let counter = 0;

/** Registers a fresh tenant and signs in; returns its credentials. */
export async function newTenant(baseUrl: string, overrides: { email?: string; rnc?: string; password?: string } = {}) {
  counter++;
  const unique = `${process.pid}${counter}${Math.floor(Math.random() * 1e6)}`;
  const email = overrides.email ?? `user${unique}@example.com`;
  const password = overrides.password ?? 'correct horse battery staple';
  const rnc = overrides.rnc ?? randomRnc();
  const reg = await call(baseUrl, 'POST', '/TesteCF/customer/register', { json: { email, password, name: `Empresa ${unique} SRL`, rnc } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const login = await call(baseUrl, 'POST', '/TesteCF/customer/authentication', { json: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  // The registered key acts only in TesteCF; tests use it in every environment.
  const keyId = reg.body.data.apiKey.id as string;
  const widened = await call(baseUrl, 'PATCH', `/api/keys/${keyId}`, { json: { environments: ['TesteCF', 'CerteCF', 'eCF'] }, headers: { authorization: `Bearer ${login.body.data.accessToken}` } });
  if (widened.status !== 200) throw new Error(`widening the key failed: ${widened.status} ${widened.text}`);
  return {
    tenantId: reg.body.data.tenant.id as number,
    rnc,
    email,
    password,
    apiKey: reg.body.data.apiKey.key as string,
    accessToken: login.body.data.accessToken as string,
    refreshToken: login.body.data.refreshToken as string,
  };
}
