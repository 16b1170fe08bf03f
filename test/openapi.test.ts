import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from './helpers/http.ts';
import { startTestService, type TestService } from './helpers/service.ts';

let t: TestService;
before(async () => {
  t = await startTestService();
});
after(() => t.close());

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
