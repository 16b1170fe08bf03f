import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_KINDS } from '../src/events/outbox.ts';
import { call, client, newTenant } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
let r: Receiver | undefined;
before(async () => {
  // The receiver of the webhook test below listens on loopback.
  t = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
after(async () => {
  await r?.close();
  await t.close();
});

test('every registered route appears in /openapi.json with its method, and nothing else does', async () => {
  const res = await call(t.url, 'GET', '/openapi.json');
  assert.equal(res.status, 200);
  assert.equal(res.body.openapi, '3.1.0');
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  const registered = new Set(t.service.router.routes.map((r) => `${r.method} ${r.path}`));
  assert.ok(registered.size > 10);
  assert.deepEqual([...registered].filter((r) => !documented.has(r)), []);
  assert.deepEqual([...documented].filter((r) => !registered.has(r)), []);
});

test('each operation has a unique id, a summary, responses, error envelopes and security', async () => {
  const doc = (await call(t.url, 'GET', '/openapi.json')).body;
  const ids = new Set<string>();
  for (const item of Object.values(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const op of Object.values(item)) {
      assert.equal(typeof op.summary, 'string');
      assert.ok(!ids.has(op.operationId as string), `duplicate operationId ${op.operationId}`);
      ids.add(op.operationId as string);
      const responses = op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>;
      assert.ok(Object.keys(responses).some((s) => s.startsWith('2')), `${op.operationId} has a success response`);
      assert.deepEqual(responses['500']?.content?.['application/json']?.schema, { $ref: '#/components/schemas/ErrorEnvelope' });
      assert.ok(Array.isArray(op.security));
    }
  }
  // Every $ref points at a component that exists.
  const refs = JSON.stringify(doc).match(/"#\/components\/[a-zA-Z]+\/[A-Za-z]+"/g) ?? [];
  for (const ref of new Set(refs)) {
    const [, , kind, name] = JSON.parse(ref).split('/');
    assert.ok(doc.components[kind]?.[name] !== undefined, `missing ${ref}`);
  }
});

interface WebhookOp {
  operationId: string;
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { description: string }>;
}

const DELIVERY_HEADERS = ['User-Agent', 'X-ECF-Tenant-Id', 'X-ECF-Event', 'X-ECF-Delivery-Id', 'X-ECF-Delivery-Attempt', 'X-ECF-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
/** Events about one document also carry its event number. */
const DOCUMENT_EVENTS: ReadonlySet<string> = new Set(['ecf.status_update', 'ecf.receptor_update', 'ecf.commercial_approval', 'ecf.email_update']);
const headersOf = (kind: string): string[] => (DOCUMENT_EVENTS.has(kind) ? [...DELIVERY_HEADERS, 'X-ECF-Event-Sequence'] : DELIVERY_HEADERS);

test('every event kind is an OpenAPI webhook with its headers, payload schema and delivery rules', async () => {
  const doc = (await call(t.url, 'GET', '/openapi.json')).body;
  const webhooks = doc.webhooks as Record<string, { post: WebhookOp }>;
  assert.deepEqual(Object.keys(webhooks).sort(), [...EVENT_KINDS].sort());
  const payloads: Record<string, string> = {};
  for (const kind of EVENT_KINDS) {
    const op = webhooks[kind]?.post;
    assert.ok(op, kind);
    assert.deepEqual(op.parameters.map((p) => [p.in, p.name]), headersOf(kind).map((h) => ['header', h]), kind);
    assert.deepEqual(op.parameters.filter((p) => !p.required).map((p) => p.name), ['X-ECF-Signature', 'webhook-signature'], 'only the signatures are optional');
    assert.equal(op.parameters.find((p) => p.name === 'X-ECF-Event')?.schema.const, kind);
    const ref = op.requestBody.content['application/json']?.schema.$ref ?? '';
    payloads[kind] = ref.split('/').at(-1) as string;
    assert.ok(doc.components.schemas[payloads[kind] as string] !== undefined, `${kind} payload ${ref} exists`);
    // Defaults: a 10 s timeout and retries after 1 min, 5 min, 30 min, 2 h and 12 h.
    assert.match(op.responses['2XX']?.description ?? '', /any 2xx status within 10 s/);
    assert.match(op.responses.default?.description ?? '', /redirect is not followed.*no complete answer within 10 s.*retried after 1 min, 5 min, 30 min, 2 h, 12 h .*abandoned/);
  }
  assert.deepEqual(payloads, { 'ecf.status_update': 'StatusUpdateEvent', 'webhook.test': 'WebhookTestEvent', 'ecf.received': 'ReceivedEvent', 'ecf.receptor_update': 'ReceptorUpdateEvent', 'ecf.commercial_approval': 'CommercialApprovalEvent', 'ecf.commercial_approval_update': 'CommercialApprovalUpdateEvent', 'ecf.received_verification': 'ReceivedVerificationEvent', 'sequence.low': 'SequenceLowEvent', 'sequence.expiring': 'SequenceExpiringEvent', 'ecf.email_update': 'EmailUpdateEvent' });
  assert.deepEqual(doc.components.schemas.StatusUpdateEvent.required, ['event', 'internalTrackId', 'encf', 'estado', 'dgiiCode', 'dgiiMessage', 'trackId', 'timestamp', 'sequence']);
  const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((o) => o.operationId));
  for (const kind of EVENT_KINDS) assert.ok(!ids.includes(webhooks[kind]?.post.operationId as string), 'operation ids are unique across paths and webhooks');
});

test('a real delivery carries exactly the documented headers and the documented payload fields', async () => {
  const a = await newTenant(t.url);
  const api = client(t.url, { authorization: `Bearer ${a.accessToken}` });
  const secret = (await api.put('/api/webhooks/settings', { json: { generate: true } })).body.data.webhookSecret as string;
  r = await startReceiver({ secret });
  await api.put('/api/webhooks/settings', { json: { webhookUrl: r.url } });
  assert.equal((await api.post('/api/webhooks/test', { json: {} })).body.data.delivery.status, 'delivered');
  const got = r.received[0];
  assert.ok(got);
  const sent = Object.keys(got.headers).filter((h) => h === 'user-agent' || h.startsWith('x-ecf-') || h.startsWith('webhook-')).sort();
  assert.deepEqual(sent, DELIVERY_HEADERS.map((h) => h.toLowerCase()).sort());
  const doc = (await call(t.url, 'GET', '/openapi.json')).body;
  const op = doc.webhooks['webhook.test'].post as WebhookOp;
  for (const p of op.parameters) {
    const value = got.headers[p.name.toLowerCase()] as string;
    if (typeof p.schema.pattern === 'string') assert.match(value, new RegExp(p.schema.pattern), p.name);
  }
  assert.deepEqual(Object.keys(got.json), doc.components.schemas.WebhookTestEvent.required);
});

test('emit declares Retry-After on its 409 and Idempotent-Replayed on every answer a replay can have', async () => {
  const doc = (await call(t.url, 'GET', '/openapi.json')).body;
  const responses = doc.paths['/{env}/documentos-ecf'].post.responses as Record<string, { headers: Record<string, { schema: { type: string } }> }>;
  assert.equal(responses['409']?.headers['Retry-After']?.schema.type, 'integer');
  for (const status of ['202', '409', '422']) {
    assert.equal(responses[status]?.headers['Idempotent-Replayed']?.schema.type, 'string', status);
  }
  for (const status of ['400', '401', '403', '429', '500']) {
    assert.equal(responses[status]?.headers['Idempotent-Replayed'], undefined, `${status} is never stored, so never replayed`);
  }
});
