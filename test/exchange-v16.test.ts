import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEcfXml, formatFechaHoraFirma } from '../src/ecf/xml/index.ts';
import { validateEcf, type EcfTipo } from '../src/ecf/validation/index.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { parseXml, signXml, textAt, verifyXml } from '../src/xml/index.ts';
import { sampleEcf, type JsonObject } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { CertificateFactory } from './helpers/dgii-protocol.ts';
import { type ExchangeService, freePort, type NoAuthReceiver, type SimulatorProcess, spawnExchangeService, spawnSimulator, startNoAuthReceiver } from './helpers/exchange-processes.ts';
import { arecfOutcome, FeSender, receiverBase } from './helpers/fe-sender.ts';
import { call, type Loose } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { waitFor } from './helpers/wait.ts';

// DGII's exchange rules of the Descripción técnica v1.6, between taxpayers as they meet: two
// service processes, each with its own database (A issues, B buys), the standalone DGII
// simulator whose directory lists both receivers (--directory) and a third taxpayer C whose
// receiver has no authentication service (--directory-without-auth), and webhooks on loopback.

const RNC_A = '130000311';
const RNC_B = '130000328';
const RNC_C = '130000336';
const ENV = 'TesteCF';

let sim: SimulatorProcess;
let serviceA: ExchangeService;
let serviceB: ExchangeService;
let taxpayerC: NoAuthReceiver;
let hooksA: Receiver;
let hooksB: Receiver;
let certs: CertificateFactory;
let credentialsC: DgiiCredentials;
type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;
let a: Tenant;
let b: Tenant;

before(async () => {
  certs = new CertificateFactory();
  credentialsC = certs.make(`/CN=Tercero Sin Autenticacion SRL/serialNumber=${RNC_C}`);
  taxpayerC = await startNoAuthReceiver(RNC_C, credentialsC);
  const [portA, portB] = [await freePort(), await freePort()];
  sim = await spawnSimulator([
    '--processing-ms', '60',
    '--directory', `${RNC_A}=http://127.0.0.1:${portA}/${ENV}/receptor/${RNC_A}`,
    '--directory', `${RNC_B}=http://127.0.0.1:${portB}/${ENV}/receptor/${RNC_B}`,
    '--directory-without-auth', `${RNC_C}=${taxpayerC.url}`,
  ]);
  [serviceA, serviceB] = await Promise.all([spawnExchangeService(sim.url, portA), spawnExchangeService(sim.url, portB)]);
  hooksA = await startReceiver();
  hooksB = await startReceiver();
  a = await newTenantWithCertificate(serviceA.url, { rnc: RNC_A });
  b = await newTenantWithCertificate(serviceB.url, { rnc: RNC_B });
  for (const [service, tenant, hooks] of [[serviceA, a, hooksA], [serviceB, b, hooksB]] as const) {
    const res = await call(service.url, 'PUT', '/api/webhooks/settings', { json: { webhookUrl: hooks.url }, headers: { authorization: `Bearer ${tenant.accessToken}` } });
    assert.equal(res.status, 200, res.text);
  }
});

after(async () => {
  await Promise.all([serviceA?.close(), serviceB?.close()]);
  await sim?.close();
  await taxpayerC?.close();
  await hooksA?.close();
  await hooksB?.close();
  certs?.remove();
});

const asA = () => ({ 'x-api-key': a.apiKey });
const asB = () => ({ 'x-api-key': b.apiKey });

function merged(base: JsonObject, extra: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    const here = out[k];
    out[k] = typeof v === 'object' && v !== null && !Array.isArray(v) && typeof here === 'object' && here !== null && !Array.isArray(here) ? merged(here as JsonObject, v as JsonObject) : v;
  }
  return out;
}

async function emit(tipo: EcfTipo, overrides: JsonObject): Promise<string> {
  const res = await call(serviceA.url, 'POST', `/${ENV}/documentos-ecf`, {
    json: sampleEcf(tipo, merged({ Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: RNC_A } } }, overrides)),
    headers: asA(),
  });
  assert.equal(res.status, 202, `tipo ${tipo}: ${res.text}`);
  return res.body.data.internalTrackId as string;
}

// The buyer identified by its RNC alone: a foreign id beside it is refused (one identity per buyer).
const buyer = (rnc: string): JsonObject => ({ Encabezado: { Comprador: { RNCComprador: rnc, IdentificadorExtranjero: undefined } } });

async function documentOfA(id: string): Promise<Loose> {
  return (await call(serviceA.url, 'GET', `/${ENV}/documentos-ecf/${id}`, { headers: asA() })).body.data;
}

/** The document once DGII decided and its buyer leg ended. */
async function settled(id: string): Promise<Loose> {
  return waitFor(async () => {
    const d = await documentOfA(id);
    return d.estado !== 'recibido' && d.estado !== 'en_proceso' && d.receptor.estado !== 'pendiente' ? d : undefined;
  }, 60_000, `document ${id} settled`);
}

async function receivedByB(encf: string): Promise<Loose | undefined> {
  const list = await call(serviceB.url, 'GET', `/${ENV}/documentos-recibidos?encf=${encf}`, { headers: asB() });
  return list.body.data.items[0];
}

/** A signed e-CF of `tipo` by `rncEmisor`, addressed to `rncComprador` when the type names a buyer. */
function signedOfType(credentials: DgiiCredentials, tipo: EcfTipo, rncEmisor: string, encf: string, rncComprador: string | null): string {
  const overrides: JsonObject = { Encabezado: { IdDoc: { eNCF: encf }, Emisor: { RNCEmisor: rncEmisor }, ...(rncComprador === null ? {} : { Comprador: { RNCComprador: rncComprador, IdentificadorExtranjero: undefined } }) } };
  const result = validateEcf(sampleEcf(tipo, overrides));
  if (!result.ok) throw new Error(`fixture ${tipo} is invalid: ${JSON.stringify(result.errors)}`);
  return signXml(buildEcfXml(tipo, result.document.ecf, formatFechaHoraFirma(new Date())), credentials.privateKey, credentials.certificate);
}

function eventsOf(hooks: Receiver, event: string, match: (json: Loose) => boolean): Loose[] {
  return hooks.received.filter((r) => r.json.event === event && match(r.json as Loose)).map((r) => r.json as Loose);
}

test('v1.6 table, issuer side: 31, 33, 34 and 44 reach the buyer; 32, 41, 43, 45, 46 and 47 are no_aplica and never sent', async () => {
  const first = await emit(31, buyer(RNC_B));
  const original = await settled(first);
  assert.equal(original.estado, 'aceptado');
  assert.equal(original.receptor.estado, 'recibido', JSON.stringify(original.receptor));
  const note = (tipo: 33 | 34) => emit(tipo, { Encabezado: { Comprador: { RNCComprador: RNC_B } }, InformacionReferencia: { NCFModificado: original.encf } });
  const ids = new Map<number, string>([
    [33, await note(33)], [34, await note(34)], [44, await emit(44, buyer(RNC_B))],
    [32, await emit(32, buyer(RNC_B))], [41, await emit(41, {})], [43, await emit(43, {})],
    // 41 names an informal seller's cédula and 45 a State body: the fixtures' own, as DGII's rules want.
    [45, await emit(45, {})], [46, await emit(46, buyer(RNC_B))], [47, await emit(47, {})],
  ]);
  for (const [tipo, id] of ids) {
    const d = await settled(id);
    assert.ok(d.estado === 'aceptado' || d.estado === 'aceptado_condicional', `tipo ${tipo}: ${d.estado} ${d.dgiiMessage ?? ''}`);
    const exchanged = [33, 34, 44].includes(tipo);
    assert.equal(d.receptor.estado, exchanged ? 'recibido' : 'no_aplica', `tipo ${tipo}: ${JSON.stringify(d.receptor)}`);
    const there = await receivedByB(d.encf as string);
    assert.equal(there !== undefined, exchanged, `tipo ${tipo} ${exchanged ? 'is' : 'is not'} in B's documentos-recibidos`);
  }

  // The RFCE of the type 32 (under RD$250,000) is kept and served as signed; other types have none.
  const consumo = await documentOfA(ids.get(32) as string);
  const rfce = await call(serviceA.url, 'GET', `/${ENV}/documentos-ecf/${consumo.internalTrackId}/rfce`, { headers: asA() });
  assert.equal(rfce.status, 200, rfce.text);
  assert.match(rfce.headers.get('content-type') ?? '', /^application\/xml/);
  assert.equal(parseXml(rfce.text).root.localName, 'RFCE');
  assert.ok(verifyXml(rfce.text).valid, 'the RFCE is signed');
  assert.equal((await call(serviceA.url, 'GET', `/${ENV}/documentos-ecf/${first}/rfce`, { headers: asA() })).status, 404);
});

test('v1.6 table, receiver side: B answers the excluded types ARECF Estado 1 motivo 1 and stores none of them; a 31 is received', async () => {
  const rncX = '130000344';
  const credentialsX = certs.make(`/CN=Emisor X SRL/serialNumber=${rncX}`);
  const sender = new FeSender(serviceB.url, receiverBase(ENV, RNC_B), credentialsX);
  const token = await sender.token();
  let n = 0;
  for (const tipo of [31, 32, 41, 43, 45, 46, 47] as const) {
    const encf = `E${tipo}${String(Date.now() % 1e6).padStart(6, '0')}${String(++n).padStart(4, '0')}`;
    // 43 and 47 name no taxpayer as buyer, 41 an informal seller and 45 a State body: the fixtures' own.
    const named = tipo === 31 || tipo === 32 || tipo === 46 ? RNC_B : null;
    const res = await sender.send('recepcion', signedOfType(credentialsX, tipo, rncX, encf, named), token);
    assert.equal(res.status, 200, `tipo ${tipo}: ${res.text}`);
    const outcome = arecfOutcome(res.text);
    if (tipo === 31) {
      assert.deepEqual([outcome.estado, outcome.motivo], ['0', undefined], `tipo ${tipo}`);
      assert.ok(await receivedByB(encf) !== undefined);
    } else {
      assert.deepEqual([outcome.estado, outcome.motivo], ['1', '1'], `tipo ${tipo}`);
      assert.equal(await receivedByB(encf), undefined, `tipo ${tipo} is not stored`);
    }
  }
});

test('a receiver without the optional authentication gets the e-CF posted directly, without a seed or a token', async () => {
  const id = await emit(31, buyer(RNC_C));
  const d = await settled(id);
  assert.equal(d.receptor.estado, 'recibido', JSON.stringify(d.receptor));
  const toC = taxpayerC.requests.filter((r) => r.xml?.includes(d.encf as string) === true);
  assert.equal(toC.length, 1, JSON.stringify(taxpayerC.requests.map((r) => r.path)));
  assert.equal(toC[0]?.path, '/taxpayer/fe/recepcion/api/ecf');
  assert.equal(toC[0]?.authorization, undefined, 'no Authorization header');
  assert.ok(!taxpayerC.requests.some((r) => r.path.includes('/autenticacion/')), 'no seed was asked for');
  const arecf = await call(serviceA.url, 'GET', `/${ENV}/documentos-ecf/${id}/arecf`, { headers: asA() });
  assert.equal(arecfOutcome(arecf.text).rncComprador, RNC_C);
  assert.match(verifyXml(arecf.text).valid ? 'signed' : 'unsigned', /^signed$/);
});

test('B verifies what it receives with DGII, approves; each ACECF leg is an event to B; A keeps the ACECF byte for byte, in the ZIP too', async () => {
  const id = await emit(31, buyer(RNC_B));
  const d = await settled(id);
  const received = await waitFor(async () => {
    const r = await receivedByB(d.encf as string);
    return r?.verificacionDgii?.estado === 'aceptado' ? r : undefined;
  }, 30_000, 'B\'s verification with DGII');
  assert.equal(received.verificacionDgii.codigo, 1);
  assert.ok(!Number.isNaN(Date.parse(received.verificacionDgii.consultadoEn)));
  const receivedEvent = await waitFor(() => eventsOf(hooksB, 'ecf.received', (j) => j.encf === d.encf)[0], 30_000, 'ecf.received');
  assert.equal(receivedEvent.verificacionDgii.estado, 'pendiente');
  const verified = await waitFor(() => eventsOf(hooksB, 'ecf.received_verification', (j) => j.encf === d.encf)[0], 30_000, 'ecf.received_verification');
  assert.deepEqual([verified.verificacionDgii.estado, verified.verificacionDgii.codigo, verified.id], ['aceptado', 1, received.id]);

  const decided = await call(serviceB.url, 'POST', `/${ENV}/documentos-recibidos/${received.id}/aprobacion`, { json: { estado: 'aprobado' }, headers: asB() });
  assert.equal(decided.status, 202, decided.text);
  const legs = await waitFor(() => {
    const events = eventsOf(hooksB, 'ecf.commercial_approval_update', (j) => j.receivedDocumentId === received.id);
    return events.length === 2 ? events : undefined;
  }, 30_000, 'both ecf.commercial_approval_update events');
  assert.deepEqual(legs.map((e) => `${e.leg}:${e.estado}`).sort(), ['dgii:enviado', 'emisor:enviado'], JSON.stringify(legs));
  assert.equal(legs[0]?.encf, d.encf);
  assert.equal(legs[0]?.rncEmisor, RNC_A);

  const sent = await call(serviceB.url, 'GET', `/${ENV}/documentos-recibidos/${received.id}/acecf`, { headers: asB() });
  assert.equal(sent.status, 200, sent.text);
  assert.match(sent.headers.get('content-type') ?? '', /^application\/xml/);
  assert.ok(verifyXml(sent.text).valid);
  const kept = await waitFor(async () => {
    const res = await call(serviceA.url, 'GET', `/${ENV}/documentos-ecf/${id}/acecf`, { headers: asA() });
    return res.status === 200 ? res : undefined;
  }, 30_000, 'A\'s copy of the ACECF');
  assert.ok(Buffer.from(kept.text, 'utf8').equals(Buffer.from(sent.text, 'utf8')), 'the ACECF A keeps is the one B signed, byte for byte');

  // The ZIP export carries the e-CF with its ARECF and ACECF beside it, byte for byte.
  const zip = await fetch(`${serviceA.url}/${ENV}/documentos-ecf/export?format=zip&encf=${d.encf as string}`, { headers: asA() });
  assert.equal(zip.status, 200);
  const dir = mkdtempSync(join(tmpdir(), 'exchange-zip-'));
  try {
    const file = join(dir, 'export.zip');
    writeFileSync(file, Buffer.from(await zip.arrayBuffer()));
    const base = `${RNC_A}${d.encf as string}`;
    const entry = (name: string) => spawnSync('unzip', ['-p', file, name]).stdout as Buffer;
    const arecf = await call(serviceA.url, 'GET', `/${ENV}/documentos-ecf/${id}/arecf`, { headers: asA() });
    assert.ok(entry(`${base}-ACECF.xml`).equals(Buffer.from(sent.text, 'utf8')), 'ACECF in the ZIP');
    assert.ok(entry(`${base}-ARECF.xml`).equals(Buffer.from(arecf.text, 'utf8')), 'ARECF in the ZIP');
    assert.ok(entry(`${base}.xml`).length > 0, 'the e-CF in the ZIP');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('B\'s ACECF about an e-CF of C goes to C\'s approval service without a token, C publishing no authentication', async () => {
  const sender = new FeSender(serviceB.url, receiverBase(ENV, RNC_B), credentialsC);
  const encf = `E31${String(Date.now() % 1e6).padStart(6, '0')}8888`;
  const res = await sender.send('recepcion', signedOfType(credentialsC, 31, RNC_C, encf, RNC_B), await sender.token());
  assert.equal(arecfOutcome(res.text).estado, '0');
  const received = await waitFor(() => receivedByB(encf), 30_000, 'C\'s e-CF at B');
  const decided = await call(serviceB.url, 'POST', `/${ENV}/documentos-recibidos/${received.id as string}/aprobacion`, { json: { estado: 'rechazado', motivo: 'Precio distinto al acordado' }, headers: asB() });
  assert.equal(decided.status, 202, decided.text);
  const emisorLeg = await waitFor(() => eventsOf(hooksB, 'ecf.commercial_approval_update', (j) => j.receivedDocumentId === received.id && j.leg === 'emisor')[0], 30_000, 'the emisor leg');
  assert.equal(emisorLeg.estado, 'enviado', JSON.stringify(emisorLeg));
  const toC = taxpayerC.requests.filter((r) => r.path === '/taxpayer/fe/aprobacioncomercial/api/ecf' && r.xml?.includes(encf) === true);
  assert.equal(toC.length, 1);
  assert.equal(toC[0]?.authorization, undefined, 'no Authorization header');
  assert.ok(!taxpayerC.requests.some((r) => r.path.includes('/autenticacion/')), 'no seed was asked for');
  const sent = await call(serviceB.url, 'GET', `/${ENV}/documentos-recibidos/${received.id as string}/acecf`, { headers: asB() });
  assert.equal(sent.text, toC[0]?.xml, 'the ACECF C got is the one B keeps');
});

test('an e-CF DGII does not know (fabricated with the emisor\'s key) is no_encontrado, and with the setting rejected automatically', async () => {
  const settings = await call(serviceB.url, 'PUT', '/api/receptor/settings', { json: { rechazarDesconocidosDgii: true }, headers: { authorization: `Bearer ${b.accessToken}` } });
  assert.equal(settings.status, 200, settings.text);
  assert.equal((await call(serviceB.url, 'PUT', '/api/receptor/settings', { json: { rechazarDesconocidosDgii: 'si' }, headers: { authorization: `Bearer ${b.accessToken}` } })).status, 422);
  const rncF = '130000352';
  const credentialsF = certs.make(`/CN=Falsificador SRL/serialNumber=${rncF}`);
  const sender = new FeSender(serviceB.url, receiverBase(ENV, RNC_B), credentialsF);
  const encf = `E31${String(Date.now() % 1e6).padStart(6, '0')}9999`;
  const res = await sender.send('recepcion', signedOfType(credentialsF, 31, rncF, encf, RNC_B), await sender.token());
  assert.equal(arecfOutcome(res.text).estado, '0', 'the receiver\'s own checks pass');

  const received = await waitFor(async () => {
    const r = await receivedByB(encf);
    return r?.verificacionDgii?.estado === 'no_encontrado' ? r : undefined;
  }, 30_000, 'verificacionDgii no_encontrado');
  assert.equal(received.verificacionDgii.codigo, 0);
  const verified = await waitFor(() => eventsOf(hooksB, 'ecf.received_verification', (j) => j.encf === encf)[0], 30_000, 'ecf.received_verification');
  assert.equal(verified.verificacionDgii.estado, 'no_encontrado');

  const legs = await waitFor(() => {
    const events = eventsOf(hooksB, 'ecf.commercial_approval_update', (j) => j.receivedDocumentId === received.id);
    return events.length === 2 ? events : undefined;
  }, 30_000, 'both legs of the automatic rejection');
  const byLeg = Object.fromEntries(legs.map((e) => [e.leg, e]));
  assert.equal(byLeg.emisor?.estado, 'no_aplica', 'the fabricated emisor is not in DGII\'s directory');
  assert.equal(byLeg.dgii?.estado, 'error');
  assert.match(String(byLeg.dgii?.detalle), /Factura no encontrada/);
  assert.equal(byLeg.dgii?.aprobacionComercial.estado, 'rechazado');
  const detail = (await call(serviceB.url, 'GET', `/${ENV}/documentos-recibidos/${received.id}`, { headers: asB() })).body.data;
  assert.equal(detail.aprobacionComercial.estado, 'rechazado');
  assert.match(detail.aprobacionComercial.motivo, /DGII no conoce este e-CF/);
  const acecf = await call(serviceB.url, 'GET', `/${ENV}/documentos-recibidos/${received.id}/acecf`, { headers: asB() });
  assert.equal(textAt(parseXml(acecf.text).root, ['DetalleAprobacionComercial', 'Estado']), '2');
});

test('a document DGII rejects has its buyer leg no_aplica, and the issuer is told with ecf.receptor_update', async () => {
  const id = await emit(31, { Encabezado: { Emisor: { NombreComercial: 'Prueba [simulador:rechazar]' }, Comprador: { RNCComprador: RNC_B } } });
  const d = await settled(id);
  assert.equal(d.estado, 'rechazado');
  assert.equal(d.receptor.estado, 'no_aplica');
  const event = await waitFor(() => eventsOf(hooksA, 'ecf.receptor_update', (j) => j.internalTrackId === id)[0], 30_000, 'ecf.receptor_update');
  assert.equal(event.receptor.estado, 'no_aplica');
  assert.equal(await receivedByB(d.encf as string), undefined);
});
