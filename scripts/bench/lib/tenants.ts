import { randomBytes, randomInt } from 'node:crypto';
import { rncCheckDigit } from '../../../src/ecf/tax-id.ts';

// Setup through the service's own API (never measured): a tenant, its API key, a session.

export interface Tenant {
  tenantId: number;
  rnc: string;
  apiKey: string;
  accessToken: string;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text for the error message
  }
  return { status: res.status, body: parsed };
}

function field(body: unknown, ...path: string[]): unknown {
  let v: unknown = body;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** Registers a tenant with a random RNC and signs its user in. */
export async function registerTenant(baseUrl: string): Promise<Tenant> {
  const unique = randomBytes(6).toString('hex');
  const email = `bench-${unique}@example.com`;
  const password = `bench password ${unique}`;
  // The service checks the RNC's check digit (modulus 11).
  const first8 = String(randomInt(10_000_000, 100_000_000));
  const rnc = `${first8}${rncCheckDigit(first8)}`;
  const reg = await post(`${baseUrl}/TesteCF/customer/register`, { email, password, name: `Benchmark ${unique} SRL`, rnc });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await post(`${baseUrl}/TesteCF/customer/authentication`, { email, password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return {
    tenantId: Number(field(reg.body, 'data', 'tenant', 'id')),
    rnc,
    apiKey: String(field(reg.body, 'data', 'apiKey', 'key')),
    accessToken: String(field(login.body, 'data', 'accessToken')),
  };
}

/** Points the tenant's webhooks at `url` with a generated secret (so deliveries are signed). */
export async function setWebhook(baseUrl: string, tenant: Tenant, url: string): Promise<void> {
  const res = await post(`${baseUrl}/api/webhooks/settings`, { webhookUrl: url, generate: true }, { authorization: `Bearer ${tenant.accessToken}` }, 'PUT');
  if (res.status !== 200) throw new Error(`webhook settings failed: ${res.status} ${JSON.stringify(res.body)}`);
}
