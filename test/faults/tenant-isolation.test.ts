import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DgiiCredentials } from '../../src/dgii/protocol/index.ts';
import { sampleEcf } from '../fixtures/ecf.ts';
import { newTenantWithCertificate } from '../helpers/certificates.ts';
import { CertificateFactory } from '../helpers/dgii-protocol.ts';
import { ecfFor, waitForEstado } from '../helpers/documents.ts';
import { arecfOutcome, FeSender, receiverBase, SENDER_RNC, SENDER_SUBJECT, signedAcecf, signedEcfTo } from '../helpers/fe-sender.ts';
import { call, type ApiResponse, type RequestOptions } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { postulacionXml } from '../helpers/postulacion.ts';
import { faultDatabase } from './helpers/database-server.ts';
import { faultEnv, startInstance, stopAllInstances, type Instance } from './helpers/instances.ts';

// Tenant isolation, route by route: tenant B, with its own valid credentials, names tenant A's
// ids on every endpoint that takes an id and gets the same 404 an id that never existed gets,
// with nothing of A in the answer; B's lists show nothing of A; B's writes leave A untouched.
// The routes come from the service's own GET /openapi.json, and every route with a path
// parameter must have a fixture below: a new endpoint cannot slip past this file unnoticed.

const ENV = 'TesteCF';
const FINAL_ESTADOS = ['aceptado', 'aceptado_condicional', 'rechazado', 'error'];
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name?: string; in?: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, unknown>;
}

interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
  scheme?: string;
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, SecurityScheme> };
}

interface ApiRoute {
  method: string;
  path: string;
  key: string;
  op: Operation;
  /** Path parameters other than {env}. */
  params: string[];
}

interface ErrorBody {
  success: false;
  error: { code: string; message: string };
}

/** Everything tenant A owns that has an id, and the strings that must never reach B. */
interface Owned {
  documentId: string;
  documentEncf: string;
  /** Fields of A's document its buyer quotes in a commercial approval. */
  approval: { fechaEmision: string; montoTotal: string };
  deliveryId: string;
  deliveryUrl: string;
  webhookSecret: string;
  keyId: string;
  key: string;
  certificateId: string;
  receivedId: string;
  receivedEncf: string;
  rangeId: string;
  annulmentId: string;
  customerId: string;
  itemId: string;
  approvalRequestId: string;
  portalSignatureId: string;
}

/**
 * A's id for each route that names a tenant-owned resource, by path template. A route with a
 * path parameter that is neither here, nor in RECEIVER_PROBES, nor in PUBLIC_PARAMS fails
 * the coverage test: give it a fixture when adding it.
 */
const OWNED_IDS: Record<string, (a: Owned) => string> = {
  '/api/keys/{id}': (a) => a.keyId,
  '/api/certificates/{id}': (a) => a.certificateId,
  '/{env}/documentos-ecf/{internalTrackId}': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/xml': (a) => a.documentId,
  '/api/webhooks/deliveries/{id}': (a) => a.deliveryId,
  '/api/webhooks/deliveries/{id}/redeliver': (a) => a.deliveryId,
  '/{env}/documentos-recibidos/{id}': (a) => a.receivedId,
  '/{env}/documentos-recibidos/{id}/xml': (a) => a.receivedId,
  '/{env}/documentos-recibidos/{id}/arecf': (a) => a.receivedId,
  '/{env}/documentos-recibidos/{id}/pdf': (a) => a.receivedId,
  '/{env}/documentos-recibidos/{id}/aprobacion': (a) => a.receivedId,
  '/{env}/documentos-ecf/{internalTrackId}/pdf': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/qr.svg': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/arecf': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/reenviar': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/receptor/reenviar': (a) => a.documentId,
  '/{env}/secuencias/{id}': (a) => a.rangeId,
  '/{env}/anulaciones/{id}': (a) => a.annulmentId,
  '/{env}/anulaciones/{id}/xml': (a) => a.annulmentId,
  '/{env}/documentos-ecf/{internalTrackId}/rfce': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/acecf': (a) => a.documentId,
  '/{env}/documentos-ecf/{internalTrackId}/correo/reenviar': (a) => a.documentId,
  '/{env}/documentos-recibidos/{id}/acecf': (a) => a.receivedId,
  '/api/clientes/{id}': (a) => a.customerId,
  '/api/articulos/{id}': (a) => a.itemId,
  '/{env}/aprobaciones-comerciales/{id}': (a) => a.approvalRequestId,
  '/{env}/certificacion/firmas/{id}': (a) => a.portalSignatureId,
};

/** Path parameters that name nothing a tenant owns, with the reason. */
const PUBLIC_PARAMS: Record<string, string> = {
  'GET /dashboard/{asset}': 'the dashboard\'s static files, the same for everyone',
  'GET /{env}/directorio/{rnc}': 'a taxpayer\'s public RNC, looked up in DGII\'s public directory',
  'PUT /{env}/certificacion/pasos/{paso}': 'the key of a step of DGII\'s portal, the same for every tenant; the mark is the caller\'s own',
};

const RECEIVER_BASE = '/{env}/receptor/{rnc}/fe';

/**
 * The receiver group is addressed by the tenant's public RNC and open to any taxpayer, so
 * naming A's RNC is not the test there: what B's receiver issued (seeds, tokens) must open
 * nothing at A's. `intruder` is that attempt; `owner` is A's own credential doing the same.
 */
interface ReceiverProbe {
  intruder(): Promise<ApiResponse<unknown>>;
  refusal: { status: number; code: string };
  owner(): Promise<ApiResponse<unknown>>;
}

let db: TestDatabase;
let hooks: Receiver;
let instance: Instance;
let url: string;
let certs: CertificateFactory;
let sender: DgiiCredentials;
let openapi: OpenApi;
let routes: ApiRoute[];
let a: Tenant;
let b: Tenant;
let owned: Owned;
let bDocumentId: string;
/** Label → value of every string of A's that B must never see. */
let secrets: Map<string, string>;
let receiverProbes: Record<string, ReceiverProbe>;

before(async () => {
  db = await faultDatabase();
  hooks = await startReceiver({ path: `/hooks/tenant-a-${randomUUID()}` });
  instance = await startInstance(await faultEnv(db.url, { RATE_LIMIT_RECEIVER_PER_MINUTE: '100000', RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE: '100000' }));
  url = instance.url;
  certs = new CertificateFactory();
  sender = certs.make(SENDER_SUBJECT);
  openapi = await (await fetch(`${url}/openapi.json`)).json() as OpenApi;
  routes = enumerate(openapi);
  [a, b] = await Promise.all([newTenantWithCertificate(url), newTenantWithCertificate(url)]);
  owned = await populate(a);
  secrets = secretsOf(a, owned);

  // B gets something of its own, so its empty-of-A lists are not merely empty.
  const bDoc = await call<{ data: { internalTrackId: string } }>(url, 'POST', `/${ENV}/documentos-ecf`, { json: ecfFor(b.rnc), headers: { 'x-api-key': b.apiKey } });
  assert.equal(bDoc.status, 202, bDoc.text);
  bDocumentId = bDoc.body.data.internalTrackId;

  receiverProbes = await buildReceiverProbes();
  // Documents and deliveries settle first, so that "A's view did not change" compares like with like.
  await waitForEstado(url, ENV, bDocumentId, { 'x-api-key': b.apiKey }, FINAL_ESTADOS);
  await settleView(a);
});

after(async () => {
  await stopAllInstances();
  await hooks?.close();
  await db?.close();
  certs?.remove();
});

function enumerate(doc: OpenApi): ApiRoute[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      key: `${method.toUpperCase()} ${path}`,
      op,
      params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string).filter((p) => p !== 'env'),
    })));
}

/** Creates one of everything A can own that has an id. */
async function populate(t: Tenant): Promise<Owned> {
  const bearer = { authorization: `Bearer ${t.accessToken}` };
  const settings = await call<{ data: { webhookSecret: string } }>(url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hooks.url, generate: true }, headers: bearer });
  assert.equal(settings.status, 200, settings.text);

  // An explicit eNCF of A's own, since automatic numbering would give B the same number.
  const documentEncf = `E31${randomInt(1_000_000_000, 10_000_000_000)}`;
  const emitted = await call<{ data: { internalTrackId: string; encf: string; fechaEmision: string; montoTotal: string } }>(url, 'POST', `/${ENV}/documentos-ecf`, {
    // The sender's RNC as buyer, so that it can send A a commercial approval of it.
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: documentEncf }, Emisor: { RNCEmisor: t.rnc }, Comprador: { RNCComprador: SENDER_RNC } } }),
    headers: { 'x-api-key': t.apiKey, 'idempotency-key': `pedido-${t.rnc}` },
  });
  assert.equal(emitted.status, 202, emitted.text);
  assert.equal(emitted.body.data.encf, documentEncf);
  const documentId = emitted.body.data.internalTrackId;

  const delivery = await call<{ data: { delivery: { id: string } } }>(url, 'POST', '/api/webhooks/test', { json: {}, headers: bearer });
  assert.equal(delivery.status, 200, delivery.text);
  const key = await call<{ data: { id: string; key: string } }>(url, 'POST', '/api/keys', { json: { name: 'ERP de A' }, headers: bearer });
  assert.equal(key.status, 201, key.text);

  const toA = new FeSender(url, receiverBase(ENV, t.rnc), sender);
  const ecf = signedEcfTo(sender, { rncComprador: t.rnc });
  const arecf = await toA.send('recepcion', ecf.xml, await toA.token());
  assert.equal(arecfOutcome(arecf.text).estado, '0', arecf.text);
  const received = await call<{ data: { items: { id: string; encf: string }[] } }>(url, 'GET', `/${ENV}/documentos-recibidos`, { headers: bearer });
  const receivedId = received.body.data.items.find((i) => i.encf === ecf.encf)?.id;
  assert.ok(receivedId !== undefined, received.text);

  // A range of type 33 (type 31 keeps its implicit numbering for the explicit eNCF above) and an
  // annulment of its last numbers.
  const range = await call<{ data: { id: string } }>(url, 'POST', `/${ENV}/secuencias`, { json: { tipo: 33, desde: 'E330000000001', hasta: 'E330000000100', fechaVencimiento: '31-12-2099' }, headers: { 'x-api-key': t.apiKey } });
  assert.equal(range.status, 201, range.text);
  const annulment = await call<{ data: { id: string } }>(url, 'POST', `/${ENV}/anulaciones`, { json: { tipo: 33, desde: 'E330000000091', hasta: 'E330000000100' }, headers: { 'x-api-key': t.apiKey } });
  assert.equal(annulment.status, 202, annulment.text);

  const customer = await call<{ data: { id: string } }>(url, 'POST', '/api/clientes', { json: { rnc: SENDER_RNC, nombre: 'Cliente de A SRL' }, headers: { 'x-api-key': t.apiKey } });
  assert.equal(customer.status, 201, customer.text);
  const item = await call<{ data: { id: string } }>(url, 'POST', '/api/articulos', { json: { descripcion: 'Artículo de A', precioUnitario: '10.00', indicadorFacturacion: 1, indicadorBienoServicio: 1 }, headers: { 'x-api-key': t.apiKey } });
  assert.equal(item.status, 201, item.text);
  const approval = await call<{ data: { id: string } }>(url, 'POST', `/${ENV}/aprobaciones-comerciales`, {
    json: { rncEmisor: SENDER_RNC, encf: 'E310000000077', fechaEmision: '01-04-2025', montoTotal: 1180, estado: 'aprobado' }, headers: { 'x-api-key': t.apiKey },
  });
  assert.equal(approval.status, 202, approval.text);
  const signature = await call(url, 'POST', `/${ENV}/certificacion/firmar`, { body: postulacionXml(t.rnc), headers: { 'content-type': 'application/xml', ...bearer } });
  assert.equal(signature.status, 200, signature.text);
  const signatures = await call<{ data: { items: { id: string }[] } }>(url, 'GET', `/${ENV}/certificacion/firmas`, { headers: bearer });
  const portalSignatureId = signatures.body.data.items[0]?.id;
  assert.ok(portalSignatureId !== undefined, signatures.text);

  // /xml exists once the document was signed, which a final state implies (but for error).
  const final = await waitForEstado(url, ENV, documentId, { 'x-api-key': t.apiKey }, FINAL_ESTADOS) as { estado: string };
  assert.notEqual(final.estado, 'error', 'A\'s document was signed and sent');
  return {
    documentId, documentEncf,
    approval: { fechaEmision: emitted.body.data.fechaEmision, montoTotal: emitted.body.data.montoTotal },
    deliveryId: delivery.body.data.delivery.id, deliveryUrl: hooks.url, webhookSecret: settings.body.data.webhookSecret,
    keyId: key.body.data.id, key: key.body.data.key,
    certificateId: t.certificateId,
    receivedId, receivedEncf: ecf.encf,
    rangeId: range.body.data.id, annulmentId: annulment.body.data.id,
    customerId: customer.body.data.id, itemId: item.body.data.id, approvalRequestId: approval.body.data.id, portalSignatureId,
  };
}

function secretsOf(t: Tenant, o: Owned): Map<string, string> {
  // API keys are ecf_sk_<publicId>_<secret>; listings show the publicId, so it counts too.
  const publicId = (key: string) => key.split('_')[2] ?? key;
  return new Map([
    ['A\'s RNC', t.rnc], ['A\'s email', t.email], ['A\'s API key', t.apiKey], ['A\'s API key publicId', publicId(t.apiKey)],
    ['A\'s access token', t.accessToken], ['A\'s second API key', o.key], ['A\'s second API key publicId', publicId(o.key)],
    ['A\'s document id', o.documentId], ['A\'s eNCF', o.documentEncf], ['A\'s delivery id', o.deliveryId],
    ['A\'s webhook URL', o.deliveryUrl], ['A\'s webhook secret', o.webhookSecret], ['A\'s API key id', o.keyId],
    ['A\'s certificate id', o.certificateId], ['A\'s received document id', o.receivedId], ['A\'s received eNCF', o.receivedEncf],
  ]);
}

/** Which of A's secrets `text` contains, leaving out values the caller itself put in the request. */
function leaks(text: string, named: readonly string[] = []): string[] {
  return [...secrets].filter(([, value]) => !named.includes(value) && text.includes(value)).map(([label]) => label);
}

function fill(path: string, value: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'env' ? ENV : value));
}

/** One header set per alternative of the route's security requirement, for tenant `t`. */
function credentialSets(op: Operation, t: Tenant): { label: string; headers: Record<string, string> }[] {
  return (op.security ?? []).map((alternative) => {
    const headers: Record<string, string> = {};
    for (const name of Object.keys(alternative)) {
      const scheme = openapi.components.securitySchemes[name];
      if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name !== undefined) headers[scheme.name.toLowerCase()] = t.apiKey;
      else if (scheme?.type === 'http' && scheme.scheme === 'bearer') headers.authorization = `Bearer ${t.accessToken}`;
      else throw new Error(`no credentials of tenant ${t.rnc} for the security scheme ${name}: teach credentialSets about it`);
    }
    return { label: Object.keys(alternative).join('+'), headers };
  });
}

/** Bodies of routes whose empty object would be refused before the lookup. */
const BODIES: Record<string, unknown> = {
  'POST /{env}/documentos-recibidos/{id}/aprobacion': { estado: 'aprobado' },
  'PUT /api/clientes/{id}': { rnc: SENDER_RNC, nombre: 'Cliente cambiado SRL' },
  'PUT /api/articulos/{id}': { descripcion: 'Artículo cambiado', precioUnitario: '11.00', indicadorFacturacion: 1, indicadorBienoServicio: 1 },
};

function requestFor(route: ApiRoute, headers: Record<string, string>): RequestOptions {
  // A route that reads JSON gets a valid body (an empty object unless BODIES says otherwise), so
  // that the lookup is what answers.
  const readsJson = route.op.requestBody?.content?.['application/json'] !== undefined || route.op.responses['415'] !== undefined;
  return readsJson ? { headers, json: BODIES[route.key] ?? {} } : { headers };
}

/**
 * Routes whose success needs a state A's resource is not in; the answer that shows the id was
 * found all the same (another tenant's id is a plain 404 NOT_FOUND).
 */
const FOUND_BUT_NOT_NOW: Record<string, (res: ApiResponse<unknown>) => boolean> = {
  'GET /{env}/documentos-ecf/{internalTrackId}/arecf': (res) => res.status === 404 && /has not acknowledged/.test(res.text),
  'POST /{env}/documentos-ecf/{internalTrackId}/reenviar': (res) => res.status === 409 && /Only a document in error/.test(res.text),
  'POST /{env}/documentos-ecf/{internalTrackId}/receptor/reenviar': (res) => res.status === 409 && /Only a buyer leg in error/.test(res.text),
  // A's document is a type 31 (no RFCE), its buyer sent no approval, and it names no buyer e-mail.
  'GET /{env}/documentos-ecf/{internalTrackId}/rfce': (res) => res.status === 404 && !/^\{"success":false,"error":\{"code":"NOT_FOUND","message":"Document not found"/.test(res.text),
  'GET /{env}/documentos-ecf/{internalTrackId}/acecf': (res) => res.status === 404 && !/^\{"success":false,"error":\{"code":"NOT_FOUND","message":"Document not found"/.test(res.text),
  'POST /{env}/documentos-ecf/{internalTrackId}/correo/reenviar': (res) => res.status === 409,
  // A has not decided on the e-CF it received.
  'GET /{env}/documentos-recibidos/{id}/acecf': (res) => res.status === 404 && !/^\{"success":false,"error":\{"code":"NOT_FOUND","message":"Received document not found"/.test(res.text),
};

function errorCode(res: ApiResponse<unknown>): string | undefined {
  const body = res.body as Partial<ErrorBody> | string;
  return typeof body === 'object' && body !== null ? body.error?.code : undefined;
}

const withIdParam = () => routes.filter((r) => r.params.length > 0);
const ownedRoutes = () => withIdParam().filter((r) => OWNED_IDS[r.path] !== undefined);
/** Parameterless GETs: every list, setting and account view, secured or public. */
const views = () => routes.filter((r) => r.method === 'GET' && r.params.length === 0);

/** Views of one thing a tenant may not have yet: B, without it, gets this 404 rather than A's. */
const EMPTY_IS_404: Record<string, RegExp> = {
  'GET /api/logo': /Logo not found/,
  'GET /{env}/certificacion/set/revision.zip': /Test set not found/,
};

/** What A sees on every view, with its bearer token (an API key use would move lastUsedAt). */
async function viewOf(t: Tenant): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const r of views().filter((v) => (v.op.security ?? []).length > 0)) {
    out[r.key] = (await call(url, 'GET', fill(r.path, ''), { headers: { authorization: `Bearer ${t.accessToken}` } })).text;
  }
  return out;
}

let settled: Record<string, string> = {};

/** A's view once nothing is moving: the same twice in a row (deliveries done, lastUsedAt written). */
async function settleView(t: Tenant): Promise<void> {
  let previous = await viewOf(t);
  settled = await waitFor(async () => {
    await sleep(150);
    const current = await viewOf(t);
    const same = JSON.stringify(current) === JSON.stringify(previous);
    previous = current;
    return same ? current : undefined;
  }, 15_000, 'A\'s view to settle');
}

async function buildReceiverProbes(): Promise<Record<string, ReceiverProbe>> {
  const toA = new FeSender(url, receiverBase(ENV, a.rnc), sender);
  const toB = new FeSender(url, receiverBase(ENV, b.rnc), sender);
  const signedSeed = async (from: FeSender) => {
    const seed = await from.seed();
    assert.equal(seed.status, 200, seed.text);
    return from.sign(seed.text);
  };
  const [tokenOfA, tokenOfB] = await Promise.all([toA.token(), toB.token()]);
  // One e-CF for A, tried first with B's token and then with A's: that A's answer is Estado 0,
  // not "duplicate", shows B's attempt stored nothing.
  const ecf = signedEcfTo(sender, { rncComprador: a.rnc });
  const acecf = signedAcecf(sender, { rncEmisor: a.rnc, encf: owned.documentEncf, ...owned.approval, rncComprador: SENDER_RNC, estado: 1 });
  return {
    [`GET ${RECEIVER_BASE}/autenticacion/api/semilla`]: {
      intruder: async () => toB.validate(await signedSeed(toA)),
      refusal: { status: 400, code: 'INVALID_REQUEST' },
      owner: async () => toA.validate(await signedSeed(toA)),
    },
    [`POST ${RECEIVER_BASE}/autenticacion/api/validacioncertificado`]: {
      intruder: async () => toA.validate(await signedSeed(toB)),
      refusal: { status: 400, code: 'INVALID_REQUEST' },
      owner: async () => toA.validate(await signedSeed(toA)),
    },
    [`POST ${RECEIVER_BASE}/recepcion/api/ecf`]: {
      intruder: () => toA.send('recepcion', ecf.xml, tokenOfB),
      refusal: { status: 401, code: 'UNAUTHORIZED' },
      owner: async () => {
        const res = await toA.send('recepcion', ecf.xml, tokenOfA);
        assert.deepEqual([res.status, arecfOutcome(res.text).estado], [200, '0'], `A's receiver received the e-CF B's token could not deliver: ${res.text}`);
        return res;
      },
    },
    [`POST ${RECEIVER_BASE}/aprobacioncomercial/api/ecf`]: {
      intruder: () => toA.send('aprobacioncomercial', acecf, tokenOfB),
      refusal: { status: 401, code: 'UNAUTHORIZED' },
      owner: () => toA.send('aprobacioncomercial', acecf, tokenOfA),
    },
  };
}

test('every route with a path parameter has an isolation fixture', () => {
  const uncovered = withIdParam()
    .filter((r) => OWNED_IDS[r.path] === undefined && receiverProbes[r.key] === undefined && PUBLIC_PARAMS[r.key] === undefined)
    .map((r) => `${r.key} (${r.params.join(', ')})`);
  assert.deepEqual(uncovered, [], 'add A\'s id for these routes to OWNED_IDS (or a probe, or a reason in PUBLIC_PARAMS)');
  const known = new Set(routes.flatMap((r) => [r.key, r.path]));
  const stale = [...Object.keys(OWNED_IDS), ...Object.keys(receiverProbes), ...Object.keys(PUBLIC_PARAMS)].filter((k) => !known.has(k));
  assert.deepEqual(stale, [], 'fixtures for routes the service no longer has');
  for (const r of ownedRoutes()) assert.equal(r.params.length, 1, `${r.key}: one id per route is what OWNED_IDS can fill`);
  assert.ok(ownedRoutes().length >= 9, `the enumeration found the id routes (${ownedRoutes().length})`);
});

test('another tenant\'s id answers 404 NOT_FOUND on every route, exactly like an id that never existed', async (t) => {
  const problems: string[] = [];
  let calls = 0;
  for (const route of ownedRoutes()) {
    const id = (OWNED_IDS[route.path] as (o: Owned) => string)(owned);
    const sets = credentialSets(route.op, b);
    if (sets.length === 0) problems.push(`${route.key}: takes no credentials, so it cannot tell tenants apart`);
    for (const { label, headers } of sets) {
      const res = await call(url, route.method, fill(route.path, id), requestFor(route, headers));
      const ghost = await call(url, route.method, fill(route.path, randomUUID()), requestFor(route, headers));
      calls += 2;
      const where = `${route.key} as B (${label})`;
      if (res.status !== 404 || errorCode(res) !== 'NOT_FOUND') problems.push(`${where}: ${res.status} ${res.text.slice(0, 300)}`);
      else if (JSON.stringify(res.body) !== JSON.stringify(ghost.body)) problems.push(`${where}: A's id is told apart from a made-up one: ${res.text} vs ${ghost.text}`);
      const leaked = leaks(res.text, [id]);
      if (leaked.length > 0) problems.push(`${where}: the answer carries ${leaked.join(', ')}`);
    }
  }
  assert.deepEqual(problems, []);
  t.diagnostic(`${ownedRoutes().length} routes, ${calls} requests: ${ownedRoutes().map((r) => r.key).join('; ')}`);
});

test('credentials B\'s receiver issued open nothing at A\'s receiver', async () => {
  const problems: string[] = [];
  for (const [key, probe] of Object.entries(receiverProbes)) {
    const res = await probe.intruder();
    if (res.status !== probe.refusal.status || errorCode(res) !== probe.refusal.code) {
      problems.push(`${key}: ${res.status} ${res.text.slice(0, 300)}, expected ${probe.refusal.status} ${probe.refusal.code}`);
    }
    // The caller named A's RNC in the path; anything else of A's would be a leak.
    const leaked = leaks(res.text, [a.rnc]);
    if (leaked.length > 0) problems.push(`${key}: the refusal carries ${leaked.join(', ')}`);
  }
  assert.deepEqual(problems, []);
});

test('B\'s lists and views show nothing of A, only B\'s own', async (t) => {
  const problems: string[] = [];
  const seen: string[] = [];
  for (const route of views()) {
    const sets = credentialSets(route.op, b);
    for (const { label, headers } of sets.length === 0 ? [{ label: 'public', headers: {} }] : sets) {
      // Filtering by A's eNCFs must not find A's documents either.
      const filters = (route.op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'encf');
      // The export needs its format.
      const base = route.path.endsWith('/export') ? 'format=csv' : '';
      const join = (q: string) => (base === '' ? q : q === '' ? `?${base}` : `${q}&${base}`);
      const queries = ['', ...(filters ? [`?encf=${owned.documentEncf}`, `?encf=${owned.receivedEncf}`] : [])].map(join);
      for (const query of queries) {
        const res = await call(url, 'GET', fill(route.path, '') + query, { headers });
        const where = `${route.key}${query} as B (${label})`;
        const empty = EMPTY_IS_404[route.key];
        if (res.status !== 200 && !(res.status === 404 && empty !== undefined && empty.test(res.text))) problems.push(`${where}: ${res.status} ${res.text.slice(0, 300)}`);
        const leaked = leaks(res.text);
        if (leaked.length > 0) problems.push(`${where}: carries ${leaked.join(', ')}`);
        seen.push(res.text);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(seen.some((text) => text.includes(bDocumentId)), 'B\'s own document is listed to B');
  // Control: each of A's ids shows up in A's own views, so their absence from B's means something.
  const ownView = Object.values(settled).join('\n');
  const unlisted = [owned.documentId, owned.deliveryId, owned.keyId, owned.certificateId, owned.receivedId, owned.deliveryUrl].filter((id) => !ownView.includes(id));
  assert.deepEqual(unlisted, [], 'A\'s views list A\'s resources');
  t.diagnostic(`views: ${views().map((r) => r.key).join('; ')}`);
});

test('B\'s writes naming A\'s ids change nothing of A\'s', async () => {
  // Whatever B's DELETE or redeliver might have queued gets time to run before A looks.
  await sleep(500);
  const now = await viewOf(a);
  for (const [key, text] of Object.entries(settled)) assert.equal(now[key], text, `A's ${key} changed after B's requests`);
  assert.equal(hooks.received.filter((r) => r.json.event === 'webhook.test').length, 1, 'A\'s test delivery was not sent again');
  const whoami = await call<{ data: { apiKeyId: string | null } }>(url, 'GET', '/api/whoami', { headers: { 'x-api-key': owned.key } });
  assert.equal(whoami.status, 200, `A's key still works: ${whoami.text}`);
  assert.equal(whoami.body.data.apiKeyId, owned.keyId);
});

test('the ids were real: A itself gets a documented success on every route', async () => {
  const problems: string[] = [];
  const documented = (op: Operation, status: number) => op.responses[String(status)] !== undefined && status >= 200 && status < 300;
  // Receiver probes first (recepcion signs with the certificate A deletes below); deletions last.
  for (const [key, probe] of Object.entries(receiverProbes)) {
    const res = await probe.owner();
    const route = routes.find((r) => r.key === key);
    if (route === undefined || !documented(route.op, res.status)) problems.push(`${key} as A: ${res.status} ${res.text.slice(0, 300)}`);
  }
  const ordered = [...ownedRoutes()].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
  for (const route of ordered) {
    const [first] = credentialSets(route.op, a);
    const res = await call(url, route.method, fill(route.path, (OWNED_IDS[route.path] as (o: Owned) => string)(owned)), requestFor(route, first?.headers ?? {}));
    const found = FOUND_BUT_NOT_NOW[route.key]?.(res) ?? false;
    if (!documented(route.op, res.status) && !found) problems.push(`${route.key} as A: ${res.status} ${res.text.slice(0, 300)}`);
  }
  assert.deepEqual(problems, []);
});

test('what A chose (eNCF, Idempotency-Key) does not collide for B', async () => {
  const res = await call<{ data: { internalTrackId: string; encf: string } }>(url, 'POST', `/${ENV}/documentos-ecf`, {
    json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: owned.documentEncf }, Emisor: { RNCEmisor: b.rnc } } }),
    headers: { 'x-api-key': b.apiKey, 'idempotency-key': `pedido-${a.rnc}` },
  });
  assert.equal(res.status, 202, `B numbers its own documents and keys its own retries: ${res.text}`);
  assert.equal(res.headers.get('idempotent-replayed'), null, 'B is not answered A\'s response');
  assert.notEqual(res.body.data.internalTrackId, owned.documentId);
  assert.equal(res.body.data.encf, owned.documentEncf);
});
