// The DGII simulator spoken to over raw HTTP: authentication, reception, status, RFCE, the
// checks DGII makes, and hostile input (which must never get a 500 or bring it down).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeMultipartFile } from '../src/dgii/protocol/index.ts';
import { securityCodeOf } from '../src/ecf/xml/index.ts';
import { runSimulatorFromArgs, SimulatorArgsError } from '../src/dgii/simulator/index.ts';
import { createLogger } from '../src/log.ts';
import { parseXml, signXml, textAt } from '../src/xml/index.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { CertificateFactory, EMISOR_RNC, EMISOR_SUBJECT, nextEncf, signedEcf, signedRfce, startSimulator, type RunningSimulator } from './helpers/dgii-protocol.ts';

// Long enough that "still En Proceso right after sending" holds on a loaded machine.
const PROCESSING_MS = 800;
const certs = new CertificateFactory();
let emisor: DgiiCredentials;
let sim: RunningSimulator;
let base: string;

before(async () => {
  emisor = certs.make(EMISOR_SUBJECT);
  sim = await startSimulator({ processingMs: PROCESSING_MS });
  base = `${sim.url}/testecf`;
});
after(async () => {
  await sim.simulator.close();
  certs.remove();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

async function http(method: string, url: string, init: { headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<Answer> {
  const body = typeof init.body === 'string' ? Buffer.from(init.body) : init.body;
  const res = await fetch(url, { method, headers: init.headers, body: body === undefined ? undefined : new Uint8Array(body) });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // XML or empty
  }
  return { status: res.status, headers: res.headers, text, json };
}

function upload(url: string, content: string | Buffer, options: { filename?: string; token?: string } = {}): Promise<Answer> {
  const { body, contentType } = encodeMultipartFile({ field: 'xml', filename: options.filename ?? 'semilla.xml', content });
  const headers: Record<string, string> = { 'content-type': contentType };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  return http('POST', url, { headers, body });
}

async function seedXml(envBase = base): Promise<string> {
  const res = await http('GET', `${envBase}/autenticacion/api/autenticacion/semilla`);
  assert.equal(res.status, 200);
  return res.text;
}

async function tokenFor(credentials: DgiiCredentials, envBase = base): Promise<string> {
  const res = await upload(`${envBase}/autenticacion/api/autenticacion/validarsemilla`, signXml(await seedXml(envBase), credentials.privateKey, credentials.certificate));
  assert.equal(res.status, 200, res.text);
  return String(res.json.token);
}

function sendEcf(token: string, xml: string, encf: string, rnc = EMISOR_RNC, envBase = base): Promise<Answer> {
  return upload(`${envBase}/recepcion/api/facturaselectronicas`, xml, { token, filename: `${rnc}${encf}.xml` });
}

function status(token: string, trackId: string, envBase = base): Promise<Answer> {
  return http('GET', `${envBase}/consultaresultado/api/consultas/estado?trackid=${encodeURIComponent(trackId)}`, { headers: { authorization: `Bearer ${token}` } });
}

async function finalStatus(token: string, trackId: string): Promise<Answer> {
  await sleep(PROCESSING_MS + 30);
  return status(token, trackId);
}

describe('authentication', () => {
  it('hands out a different SemillaModel seed with valor and a -04:00 fecha on every request', async () => {
    const a = parseXml(await seedXml());
    const b = parseXml(await seedXml());
    assert.equal(a.root.localName, 'SemillaModel');
    assert.match(textAt(a.root, ['valor']) ?? '', /^[A-Za-z0-9+/]{80,}={0,2}$/);
    assert.match(textAt(a.root, ['fecha']) ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-04:00$/);
    assert.notEqual(textAt(a.root, ['valor']), textAt(b.root, ['valor']));
  });

  it('gives a one-hour token for a seed signed by the taxpayer certificate', async () => {
    const res = await upload(`${base}/autenticacion/api/autenticacion/validarsemilla`, signXml(await seedXml(), emisor.privateKey, emisor.certificate));
    assert.equal(res.status, 200);
    assert.match(String(res.json.token), /^[A-Za-z0-9_-]{40,}$/);
    assert.equal(Date.parse(String(res.json.expira)) - Date.parse(String(res.json.expedido)), 3_600_000);
  });

  it('accepts a seed once only', async () => {
    const signed = signXml(await seedXml(), emisor.privateKey, emisor.certificate);
    const url = `${base}/autenticacion/api/autenticacion/validarsemilla`;
    assert.equal((await upload(url, signed)).status, 200);
    const again = await upload(url, signed);
    assert.equal(again.status, 400);
    assert.match(String(again.json.mensaje), /ya fue utilizada/);
  });

  it('refuses an unsigned seed, a tampered one and a seed it never issued', async () => {
    const url = `${base}/autenticacion/api/autenticacion/validarsemilla`;
    const unsigned = await upload(url, await seedXml());
    assert.equal(unsigned.status, 400);
    assert.match(String(unsigned.json.mensaje), /firma de la semilla no es válida/);

    const signed = signXml(await seedXml(), emisor.privateKey, emisor.certificate);
    const tampered = await upload(url, signed.replace(/<valor>./, '<valor>#'));
    assert.equal(tampered.status, 400);
    assert.match(String(tampered.json.mensaje), /digest mismatch/);

    const forged = signXml('<SemillaModel><valor>inventada</valor><fecha>x</fecha></SemillaModel>', emisor.privateKey, emisor.certificate);
    const res = await upload(url, forged);
    assert.equal(res.status, 400);
    assert.match(String(res.json.mensaje), /semilla no es válida/);
  });

  it('refuses an expired certificate and one that names no RNC or cédula, with 401', async () => {
    const url = `${base}/autenticacion/api/autenticacion/validarsemilla`;
    const expired = certs.make(EMISOR_SUBJECT, { days: -1 });
    const a = await upload(url, signXml(await seedXml(), expired.privateKey, expired.certificate));
    assert.equal(a.status, 401);
    assert.match(String(a.json.mensaje), /venció/);
    const anonymous = certs.make('/CN=Sin Identificacion');
    const b = await upload(url, signXml(await seedXml(), anonymous.privateKey, anonymous.certificate));
    assert.equal(b.status, 401);
    assert.match(String(b.json.mensaje), /no identifica/);
  });

  it('keeps seeds and tokens apart per environment', async () => {
    const certBase = `${sim.url}/certecf`;
    const signed = signXml(await seedXml(), emisor.privateKey, emisor.certificate);
    assert.equal((await upload(`${certBase}/autenticacion/api/autenticacion/validarsemilla`, signed)).status, 400);
    const token = await tokenFor(emisor);
    const doc = signedEcf(emisor);
    assert.equal((await sendEcf(token, doc.xml, doc.encf, EMISOR_RNC, certBase)).status, 401);
  });

  it('matches paths case-insensitively, as DGII spells them both ways', async () => {
    const res = await http('GET', `${sim.url}/TesteCF/Autenticacion/api/Autenticacion/Semilla`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /xml/);
  });

  it('answers 404 for unknown paths and environments and 405 for the wrong method', async () => {
    assert.equal((await http('GET', `${sim.url}/testecf/nada`)).status, 404);
    assert.equal((await http('GET', `${sim.url}/produccion/autenticacion/api/autenticacion/semilla`)).status, 404);
    assert.equal((await http('GET', `${sim.url}/fc/testecf/autenticacion/api/autenticacion/semilla`)).status, 404);
    const wrong = await http('POST', `${base}/autenticacion/api/autenticacion/semilla`);
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET');
  });
});

describe('reception and status', () => {
  let token: string;
  before(async () => {
    token = await tokenFor(emisor);
  });

  it('requires a Bearer token it issued', async () => {
    const doc = signedEcf(emisor);
    const none = await upload(`${base}/recepcion/api/facturaselectronicas`, doc.xml, { filename: `${EMISOR_RNC}${doc.encf}.xml` });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await sendEcf('invented-token', doc.xml, doc.encf)).status, 401);
    assert.equal((await status('invented-token', 'x')).status, 401);
  });

  it('answers En Proceso for processingMs, then Aceptado', async () => {
    const doc = signedEcf(emisor);
    const sent = await sendEcf(token, doc.xml, doc.encf);
    assert.equal(sent.status, 200);
    assert.deepEqual(Object.keys(sent.json).sort(), ['error', 'mensaje', 'trackId']);
    const trackId = String(sent.json.trackId);
    assert.match(trackId, /^[0-9a-f-]{36}$/);

    const pending = await status(token, trackId);
    assert.equal(pending.json.codigo, 3);
    assert.equal(pending.json.estado, 'En Proceso');

    const done = await finalStatus(token, trackId);
    assert.equal(done.json.codigo, 1);
    assert.equal(done.json.estado, 'Aceptado');
    assert.equal(done.json.encf, doc.encf);
    assert.equal(done.json.rnc, EMISOR_RNC);
    assert.equal(done.json.secuenciaUtilizada, true);
    assert.match(String(done.json.fechaRecepcion), /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    assert.deepEqual(done.json.mensajes, [{ valor: 'Aceptado', codigo: 0 }]);
  });

  it('rejects an eNCF the emisor already used', async () => {
    const doc = signedEcf(emisor);
    await sendEcf(token, doc.xml, doc.encf);
    const again = signedEcf(emisor, { encf: doc.encf });
    const second = await sendEcf(token, again.xml, again.encf);
    const done = await finalStatus(token, String(second.json.trackId));
    assert.equal(done.json.codigo, 2);
    assert.match(JSON.stringify(done.json.mensajes), /ya fue utilizado/);
  });

  it('gives a document with a broken signature a trackId and then Rechazado naming the signature', async () => {
    const doc = signedEcf(emisor);
    const tampered = doc.xml.replace('<MontoTotal>', '<MontoTotal>1');
    const sent = await sendEcf(token, tampered, doc.encf);
    assert.equal(sent.status, 200);
    const done = await finalStatus(token, String(sent.json.trackId));
    assert.equal(done.json.codigo, 2);
    assert.match(JSON.stringify(done.json.mensajes), /firma digital del documento no es válida/);
  });

  it('rejects a signed document that breaks the XSD, listing the problems', async () => {
    const encf = nextEncf();
    const unsigned = `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>${encf}</eNCF></IdDoc><Emisor><RNCEmisor>${EMISOR_RNC}</RNCEmisor></Emisor></Encabezado></ECF>`;
    const sent = await sendEcf(token, signXml(unsigned, emisor.privateKey, emisor.certificate), encf);
    assert.equal(sent.status, 200);
    const done = await finalStatus(token, String(sent.json.trackId));
    assert.equal(done.json.codigo, 2);
    const mensajes = done.json.mensajes as { valor: string; codigo: number }[];
    assert.equal(mensajes[0]?.valor, 'El documento no cumple con el esquema XSD');
    assert.ok(mensajes.length > 1 && mensajes.every((m) => m.codigo === 7));
    assert.equal(done.json.secuenciaUtilizada, false);
  });

  it('gives the verdict a scenario marker asks for', async () => {
    const doc = signedEcf(emisor, { nombreComercial: 'Caribe [simulador:condicional]' });
    const sent = await sendEcf(token, doc.xml, doc.encf);
    const done = await finalStatus(token, String(sent.json.trackId));
    assert.equal(done.json.codigo, 4);
    assert.equal(done.json.estado, 'Aceptado Condicional');
  });

  it('refuses a document of another RNC than the token holder, and a wrong file name', async () => {
    const other = certs.make('/CN=Otra Empresa SRL/serialNumber=101672919');
    const otherToken = await tokenFor(other);
    const doc = signedEcf(emisor);
    const res = await sendEcf(otherToken, doc.xml, doc.encf);
    assert.equal(res.status, 400);
    assert.equal(res.json.trackId, null);
    assert.match(String(res.json.mensaje), /RNCEmisor 131880681 del documento no corresponde al RNC 101672919/);

    const misnamed = await upload(`${base}/recepcion/api/facturaselectronicas`, doc.xml, { token, filename: 'factura.xml' });
    assert.equal(misnamed.status, 400);
    assert.match(String(misnamed.json.mensaje), new RegExp(`${EMISOR_RNC}${doc.encf}\\.xml`));
  });

  it('answers No encontrado for an unknown trackId and for another holder’s', async () => {
    const unknown = await status(token, '00000000-0000-0000-0000-000000000000');
    assert.equal(unknown.status, 200);
    assert.equal(unknown.json.codigo, 0);
    assert.equal(unknown.json.estado, 'No encontrado');

    const doc = signedEcf(emisor);
    const trackId = String((await sendEcf(token, doc.xml, doc.encf)).json.trackId);
    const otherToken = await tokenFor(certs.make('/CN=Tercero/serialNumber=130458715'));
    assert.equal((await status(otherToken, trackId)).json.codigo, 0);
    assert.equal((await http('GET', `${base}/consultaresultado/api/consultas/estado`, { headers: { authorization: `Bearer ${token}` } })).status, 400);
  });

  it('decides an RFCE at once on the fc host, with no trackId', async () => {
    const { rfceXml, encf } = signedRfce(emisor);
    const res = await upload(`${sim.url}/fc/testecf/recepcionfc/api/recepcion/ecf`, rfceXml, { token, filename: `${EMISOR_RNC}${encf}.xml` });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { codigo: 1, estado: 'Aceptado', mensajes: [{ valor: 'Aceptado', codigo: 0 }], encf, secuenciaUtilizada: true });
  });

  it('rejects a full e-CF sent to the RFCE service by its schema', async () => {
    const doc = signedEcf(emisor);
    const res = await upload(`${sim.url}/fc/testecf/recepcionfc/api/recepcion/ecf`, doc.xml, { token, filename: `${EMISOR_RNC}${doc.encf}.xml` });
    assert.equal(res.status, 200);
    assert.equal(res.json.codigo, 2);
    assert.equal(res.json.secuenciaUtilizada, false);
  });
});

describe('Consulta TrackIds', () => {
  let token: string;
  before(async () => {
    token = await tokenFor(emisor);
  });

  const consulta = (t: string | null, query: string): Promise<Answer> =>
    http('GET', `${base}/consultatrackids/api/trackids/consulta${query}`, t === null ? {} : { headers: { authorization: `Bearer ${t}` } });

  it('requires a Bearer token it issued', async () => {
    const none = await consulta(null, `?rncemisor=${EMISOR_RNC}&encf=E310000000001`);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await consulta('invented-token', `?rncemisor=${EMISOR_RNC}&encf=E310000000001`)).status, 401);
  });

  it('answers 400 when rncemisor or encf is missing or blank', async () => {
    for (const query of ['', `?rncemisor=${EMISOR_RNC}`, '?encf=E310000000001', `?rncemisor=${EMISOR_RNC}&encf=%20`]) {
      const res = await consulta(token, query);
      assert.equal(res.status, 400, query);
      assert.match(String(res.json.mensaje), /rncEmisor y encf son requeridos/);
    }
  });

  it('lists the submissions of the eNCF oldest first, each with its estado and fechaRecepcion', async () => {
    const doc = signedEcf(emisor);
    const first = String((await sendEcf(token, doc.xml, doc.encf)).json.trackId);
    await sleep(PROCESSING_MS + 30);
    const again = signedEcf(emisor, { encf: doc.encf });
    const second = String((await sendEcf(token, again.xml, again.encf)).json.trackId);
    const before = sim.simulator.counters().trackIdQueries;
    // Parameter names in any capitals, as DGII matches them.
    const res = await consulta(token, `?RncEmisor=${EMISOR_RNC}&ENCF=${doc.encf}`);
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const list = JSON.parse(res.text) as { trackId: string; estado: string; fechaRecepcion: string }[];
    assert.deepEqual(list.map((e) => [e.trackId, e.estado]), [[first, 'Aceptado'], [second, 'En Proceso']]);
    for (const e of list) {
      assert.deepEqual(Object.keys(e).sort(), ['estado', 'fechaRecepcion', 'trackId']);
      assert.match(e.fechaRecepcion, /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    }
    assert.equal(sim.simulator.counters().trackIdQueries - before, 1);
    assert.deepEqual(sim.simulator.trackIdsOf('TesteCF', EMISOR_RNC, doc.encf), [first, second]);
  });

  it('answers an empty list for an eNCF it never received, another holder’s, and another environment’s (eCF: CerteCF publishes no Consulta TrackIds)', async () => {
    const doc = signedEcf(emisor);
    assert.equal((await sendEcf(token, doc.xml, doc.encf)).status, 200);
    const unknown = await consulta(token, `?rncemisor=${EMISOR_RNC}&encf=${nextEncf()}`);
    assert.equal(unknown.status, 200);
    assert.equal(unknown.text, '[]');
    const otherToken = await tokenFor(certs.make('/CN=Tercero/serialNumber=130458715'));
    assert.equal((await consulta(otherToken, `?rncemisor=${EMISOR_RNC}&encf=${doc.encf}`)).text, '[]');
    const prodToken = await tokenFor(emisor, `${sim.url}/ecf`);
    const prod = await http('GET', `${sim.url}/ecf/consultatrackids/api/trackids/consulta?rncemisor=${EMISOR_RNC}&encf=${doc.encf}`, { headers: { authorization: `Bearer ${prodToken}` } });
    assert.equal(prod.text, '[]');
  });

  it('answers 405 to a POST', async () => {
    const res = await http('POST', `${base}/consultatrackids/api/trackids/consulta`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET');
  });
});

describe('Consulta RFCE', () => {
  let token: string;
  before(async () => {
    token = await tokenFor(emisor);
  });

  const consulta = (t: string | null, query: string, path = '/fc/testecf/consultarfce/api/Consultas/Consulta'): Promise<Answer> =>
    http('GET', `${sim.url}${path}${query}`, t === null ? {} : { headers: { authorization: `Bearer ${t}` } });

  it('answers the verdict on a summary it received, given RNC_Emisor, ENCF and the security code it carries', async () => {
    const { ecfXml, rfceXml, encf } = signedRfce(emisor);
    assert.equal((await upload(`${sim.url}/fc/testecf/recepcionfc/api/recepcion/ecf`, rfceXml, { token, filename: `${EMISOR_RNC}${encf}.xml` })).status, 200);
    const code = securityCodeOf(ecfXml);
    const query = `?RNC_Emisor=${EMISOR_RNC}&ENCF=${encf}&Cod_Seguridad_eCF=${encodeURIComponent(code)}`;
    const res = await consulta(token, query, '/fc/TesteCF/ConsultaRFCE/api/consultas/consulta');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { rnc: EMISOR_RNC, encf, secuenciaUtilizada: true, codigo: '1', estado: 'Aceptado', mensajes: [{ valor: 'Aceptado', codigo: 0 }] });
    const wrong = await consulta(token, `?RNC_Emisor=${EMISOR_RNC}&ENCF=${encf}&Cod_Seguridad_eCF=${code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`);
    assert.deepEqual([wrong.json.codigo, wrong.json.estado], ['0', 'No encontrado']);
    const otherToken = await tokenFor(certs.make('/CN=Tercero/serialNumber=130458715'));
    assert.equal((await consulta(otherToken, query)).json.codigo, '0', 'another holder learns nothing');
    assert.equal((await consulta(token, query, '/consultarfce/api/Consultas/Consulta')).status, 404, 'it is on the fc host only');
  });

  it('requires a Bearer token it issued and all three parameters', async () => {
    const query = `?RNC_Emisor=${EMISOR_RNC}&ENCF=E320000000001&Cod_Seguridad_eCF=abcdef`;
    assert.equal((await consulta(null, query)).status, 401);
    assert.equal((await consulta('invented-token', query)).status, 401);
    for (const partial of ['', `?RNC_Emisor=${EMISOR_RNC}&ENCF=E320000000001`, `?ENCF=E320000000001&Cod_Seguridad_eCF=abcdef`, `?RNC_Emisor=${EMISOR_RNC}&ENCF=%20&Cod_Seguridad_eCF=abcdef`]) {
      const res = await consulta(token, partial);
      assert.equal(res.status, 400, partial);
      assert.match(String(res.json.mensaje), /RNC_Emisor, ENCF y Cod_Seguridad_eCF son requeridos/);
    }
  });
});

describe('faults', () => {
  it('a dropAnswer fault receives the upload, then closes the connection without answering', async () => {
    const token = await tokenFor(emisor);
    const doc = signedEcf(emisor);
    const before = sim.simulator.counters().documentsReceived;
    sim.simulator.injectFault({ service: 'recepcion', dropAnswer: true });
    await assert.rejects(sendEcf(token, doc.xml, doc.encf), TypeError, 'fetch fails: no answer came back');
    assert.equal(sim.simulator.counters().documentsReceived - before, 1);
    assert.equal(sim.simulator.trackIdsOf('TesteCF', EMISOR_RNC, doc.encf).length, 1);
    // The fault was used up: the next request is answered.
    assert.equal((await status(token, 'x')).status, 200);
  });

  it('a holdAnswerMs fault receives the upload at once and answers it only later', async () => {
    const token = await tokenFor(emisor);
    const doc = signedEcf(emisor);
    const before = sim.simulator.counters().documentsReceived;
    sim.simulator.injectFault({ service: 'recepcion', holdAnswerMs: 400 });
    const started = Date.now();
    let answered = false;
    const sending = sendEcf(token, doc.xml, doc.encf).finally(() => (answered = true));
    await sleep(200);
    assert.equal(sim.simulator.counters().documentsReceived - before, 1, 'received while the answer is held');
    assert.equal(answered, false);
    const sent = await sending;
    assert.ok(Date.now() - started >= 390);
    assert.deepEqual(sim.simulator.trackIdsOf('TesteCF', EMISOR_RNC, doc.encf), [String(sent.json.trackId)]);
  });

  it('an answer fault replies with the given JSON instead of handling the request; clearFaults drops what is left', async () => {
    const token = await tokenFor(emisor);
    const body = { trackId: 'x', codigo: 0, estado: 'No encontrado', mensajes: [] };
    sim.simulator.injectFault({ service: 'estado', answer: { status: 200, body }, times: 5 });
    const before = sim.simulator.counters().statusQueries;
    assert.deepEqual((await status(token, 'anything')).json, body);
    assert.deepEqual((await status(token, 'anything')).json, body);
    assert.equal(sim.simulator.counters().statusQueries, before, 'the service itself was not asked');
    sim.simulator.clearFaults();
    const res = await status(token, 'anything');
    assert.equal(res.json.codigo, 0);
    assert.deepEqual(res.json.mensajes, [{ valor: 'No se encontró el trackId', codigo: 0 }], 'the service\'s own answer again');
  });
});

describe('hostile input', () => {
  let token: string;
  before(async () => {
    token = await tokenFor(emisor);
  });

  const recepcion = (): string => `${base}/recepcion/api/facturaselectronicas`;

  it('answers multipart garbage with 400, never 500', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const cases: { headers: Record<string, string>; body: Buffer }[] = [
      { headers: { ...auth }, body: Buffer.from('<ECF/>') },
      { headers: { ...auth, 'content-type': 'application/json' }, body: Buffer.from('{}') },
      { headers: { ...auth, 'content-type': 'multipart/form-data' }, body: Buffer.from('x') },
      { headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b' }, body: Buffer.from('--b\r\nContent-Disposition: form-data; name="xml"; filename="a"\r\n\r\n<a/>') },
      { headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b' }, body: Buffer.from('--b\r\nContent-Disposition: form-data; name="otro"; filename="a"\r\n\r\n<a/>\r\n--b--') },
      { headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b' }, body: Buffer.from('--b\r\nContent-Disposition: form-data; name="xml"; filename="a"\r\n\r\n\r\n--b--') },
    ];
    for (const c of cases) {
      const res = await http('POST', recepcion(), c);
      assert.equal(res.status, 400, res.text);
      assert.equal(typeof res.json.mensaje, 'string');
    }
  });

  it('refuses XML bombs, random bytes and deep nesting in the file with 400', async () => {
    const bomb = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><ECF>&b;</ECF>';
    const external = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><ECF>&e;</ECF>';
    const deep = `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`;
    for (const content of [bomb, external, deep, randomBytes(4096), '<ECF>unclosed']) {
      const res = await upload(recepcion(), content, { token, filename: 'x.xml' });
      assert.equal(res.status, 400, res.text);
      assert.match(String(res.json.mensaje), /no es un XML válido/);
      const seed = await upload(`${base}/autenticacion/api/autenticacion/validarsemilla`, content);
      assert.equal(seed.status, 400, seed.text);
    }
  });

  it('survives random bodies and headers on every service', async () => {
    const paths = [
      ['POST', '/testecf/autenticacion/api/autenticacion/validarsemilla'],
      ['POST', '/testecf/recepcion/api/facturaselectronicas'],
      ['POST', '/fc/testecf/recepcionfc/api/recepcion/ecf'],
      ['GET', '/testecf/consultaresultado/api/consultas/estado?trackid=%00%ff'],
      ['GET', '/testecf/consultatrackids/api/trackids/consulta?rncemisor=%00&encf=%ff%fe'],
    ] as const;
    for (let i = 0; i < 60; i++) {
      const [method, path] = paths[i % paths.length] as (typeof paths)[number];
      const boundary = randomBytes(3).toString('hex');
      const headers: Record<string, string> = {
        'content-type': i % 2 === 0 ? `multipart/form-data; boundary=${boundary}` : `multipart/form-data; boundary="${randomBytes(2).toString('hex')}`,
        authorization: i % 3 === 0 ? `Bearer ${token}` : `Bearer ${randomBytes(8).toString('base64')}`,
      };
      const body = method === 'POST' ? Buffer.concat([Buffer.from(`--${boundary}\r\n`), randomBytes(200 + i * 10)]) : undefined;
      const res = await http(method, sim.url + path, { headers, ...(body === undefined ? {} : { body }) });
      assert.ok(res.status >= 200 && res.status < 500, `${method} ${path} → ${res.status} ${res.text}`);
    }
    assert.equal((await http('GET', `${base}/autenticacion/api/autenticacion/semilla`)).status, 200);
  });

  it('caps the body size: 413 or a closed connection, and it keeps serving', async () => {
    const outcome = await new Promise<number | string>((resolve) => {
      const url = new URL(recepcion());
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b', authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (err) => resolve(err.message));
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      const pump = (): void => {
        while (sent < 20) {
          sent++;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    assert.ok(outcome === 413 || typeof outcome === 'string', `got ${outcome}`);
    const declared = await http('POST', recepcion(), {
      headers: { 'content-type': 'multipart/form-data; boundary=b', authorization: `Bearer ${token}`, 'content-length': String(7 * 1024 * 1024) },
      body: Buffer.alloc(7 * 1024 * 1024),
    }).catch((err: unknown) => String(err));
    assert.ok(typeof declared === 'string' || declared.status === 413);
    assert.equal((await http('GET', `${base}/autenticacion/api/autenticacion/semilla`)).status, 200);
  });
});

describe('runSimulatorFromArgs', () => {
  it('starts on the given host and port with the given processing time', async () => {
    const { simulator, url } = await runSimulatorFromArgs(['--port', '0', '--host', '127.0.0.1', '--processing-ms', '5'], createLogger('silent'));
    try {
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await http('GET', `${url}/ecf/autenticacion/api/autenticacion/semilla`);
      assert.equal(res.status, 200);
    } finally {
      await simulator.close();
    }
  });

  it('refuses unknown options and values out of range with the usage text', async () => {
    for (const argv of [['--bogus'], ['--port', '70000'], ['--processing-ms', '-1'], ['--port', 'abc'], ['extra']]) {
      await assert.rejects(runSimulatorFromArgs(argv, createLogger('silent')), (err: unknown) => err instanceof SimulatorArgsError && /Usage:/.test(err.message), argv.join(' '));
    }
  });
});
