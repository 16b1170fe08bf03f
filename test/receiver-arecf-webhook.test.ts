import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { arecfOutcome, FeSender, receiverBase, SENDER_RNC, SENDER_SUBJECT, signedEcfTo } from './helpers/fe-sender.ts';
import { client } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// What leaves the receiver: the ARECF it signs, checked by xmlsec1 (an implementation
// independent of the service's own verifier), and the ecf.received webhook, delivered over
// real HTTP to a receiver on loopback.

let t: TestService;
let certs: CertificateFactory;
let sender: DgiiCredentials;
let dir = '';
const hooks: Receiver[] = [];

before(async () => {
  t = await startTestService({
    env: { RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE: '1000', RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' },
  });
  certs = new CertificateFactory();
  sender = certs.make(SENDER_SUBJECT);
  dir = mkdtempSync(join(tmpdir(), 'arecf-xmlsec-'));
});
after(async () => {
  for (const h of hooks) await h.close();
  await t.close();
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** `xmlsec1 --verify --trusted-pem <cert> <file>`: exit status and what it printed. */
function xmlsecVerify(xml: string, trustedPem: string): { status: number | null; output: string } {
  const file = join(dir, `arecf-${++files}.xml`);
  writeFileSync(file, xml, 'utf8');
  const run = spawnSync('xmlsec1', ['--verify', '--trusted-pem', trustedPem, file], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

async function tenantAndSender() {
  const tenant = await newTenantWithCertificate(t.url);
  const fe = new FeSender(t.url, receiverBase('TesteCF', tenant.rnc), sender);
  return { tenant, fe, token: await fe.token() };
}

test('the ARECF the receiver signs, Estado 0 and Estado 1, verifies with xmlsec1 against the tenant\'s certificate', async () => {
  const { tenant, fe, token } = await tenantAndSender();
  const { xml } = signedEcfTo(sender, { rncComprador: tenant.rnc });
  const received = await fe.send('recepcion', xml, token);
  const duplicate = await fe.send('recepcion', xml, token);
  assert.deepEqual([arecfOutcome(received.text).estado, arecfOutcome(duplicate.text).motivo], ['0', '3']);
  for (const arecf of [received.text, duplicate.text]) {
    const verified = xmlsecVerify(arecf, tenant.certificate.certificatePath);
    assert.equal(verified.status, 0, verified.output);
    assert.match(verified.output, /OK/);
  }
  // The same check fails once a signed byte changes, and against another certificate.
  const tampered = received.text.replace('<Estado>0</Estado>', '<Estado>1</Estado>');
  assert.notEqual(tampered, received.text);
  assert.notEqual(xmlsecVerify(tampered, tenant.certificate.certificatePath).status, 0);
  const stranger = await newTenantWithCertificate(t.url);
  assert.notEqual(xmlsecVerify(received.text, stranger.certificate.certificatePath).status, 0);
});

test('a received e-CF is delivered as an ecf.received webhook to the tenant\'s URL, signed, with every header', async () => {
  const { tenant, fe, token } = await tenantAndSender();
  const api = client(t.url, { authorization: `Bearer ${tenant.accessToken}` });
  const secret = (await api.put('/api/webhooks/settings', { json: { generate: true } })).body.data.webhookSecret as string;
  const hook = await startReceiver({ secret });
  hooks.push(hook);
  assert.equal((await api.put('/api/webhooks/settings', { json: { webhookUrl: hook.url } })).status, 200);

  const { xml, encf } = signedEcfTo(sender, { rncComprador: tenant.rnc });
  assert.equal(arecfOutcome((await fe.send('recepcion', xml, token)).text).estado, '0');
  await waitFor(async () => hook.received.length > 0 || undefined, 10_000, 'the ecf.received delivery');

  assert.equal(hook.received.length, 1);
  const got = hook.received[0];
  assert.ok(got);
  assert.equal(got.signatureValid, true, 'X-ECF-Signature verifies with the tenant\'s secret');
  assert.equal(got.headers['content-type'], 'application/json');
  assert.match(String(got.headers['user-agent']), /^ecf-service-webhooks\//);
  assert.equal(got.headers['x-ecf-event'], 'ecf.received');
  assert.equal(got.headers['x-ecf-tenant-id'], String(tenant.tenantId));
  assert.equal(got.headers['x-ecf-delivery-attempt'], '1');
  assert.equal(got.json.event, 'ecf.received');
  assert.equal(got.json.encf, encf);
  assert.equal(got.json.rncEmisor, SENDER_RNC);
  assert.equal(got.json.rncComprador, tenant.rnc);

  const deliveries = await waitFor(async () => {
    const list = await api.get('/api/webhooks/deliveries?event=ecf.received');
    const items = list.body.data.items as { id: string; status: string; subject: unknown }[];
    return items.length === 1 && items[0]?.status === 'delivered' ? items : undefined;
  }, 10_000, 'the delivery recorded as delivered');
  assert.equal(got.headers['x-ecf-delivery-id'], deliveries[0]?.id);
  // The list names the received e-CF and its emisor, as the payload does.
  assert.deepEqual(deliveries[0]?.subject, { encf, rncEmisor: SENDER_RNC, razonSocialEmisor: got.json.razonSocialEmisor });
  assert.equal(typeof got.json.razonSocialEmisor, 'string');
});
