// The DGII simulator applies DGII's rules beyond the XSD to what it receives (issue 29), so a
// client that skipped them meets them over HTTP: documents are built here past the service's
// own checks, signed, and uploaded to the simulator raw.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeMultipartFile } from '../src/dgii/protocol/index.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';
import { addDays, dominicanToday, toDgiiDate } from '../src/ecf/encf.ts';
import { validateEcf } from '../src/ecf/validation/index.ts';
import type { EcfObject } from '../src/ecf/validation/index.ts';
import { buildAcecfXml, buildEcfXml, formatFechaHoraFirma } from '../src/ecf/xml/index.ts';
import { signXml } from '../src/xml/index.ts';
import { sampleEcf, type JsonObject } from './fixtures/ecf.ts';
import { CertificateFactory, EMISOR_RNC, EMISOR_SUBJECT, startSimulator, type RunningSimulator } from './helpers/dgii-protocol.ts';
import type { Loose } from './helpers/http.ts';

const PROCESSING_MS = 50;
const certs = new CertificateFactory();
let emisor: DgiiCredentials;
let sim: RunningSimulator;
let base: string;
let token: string;
let counter = 0;
let tokenAnswer: Loose;

async function post(url: string, content: string, filename: string, bearer?: string): Promise<{ status: number; json: Loose }> {
  const { body, contentType } = encodeMultipartFile({ field: 'xml', filename, content });
  const headers: Record<string, string> = { 'content-type': contentType };
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(url, { method: 'POST', headers, body: new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : {} };
}

before(async () => {
  emisor = certs.make(EMISOR_SUBJECT);
  sim = await startSimulator({ processingMs: PROCESSING_MS });
  base = `${sim.url}/testecf`;
  const seed = await (await fetch(`${base}/autenticacion/api/autenticacion/semilla`)).text();
  const res = await post(`${base}/autenticacion/api/autenticacion/validarsemilla`, signXml(seed, emisor.privateKey, emisor.certificate), 'semilla.xml');
  token = String(res.json.token);
  tokenAnswer = res.json;
});
after(async () => {
  await sim.simulator.close();
  certs.remove();
});

/** A valid normalised e-CF of the type, then `edit` applied past the service's checks. */
function ecfOf(tipo: 31 | 33 | 34 | 41 | 44 | 45, overrides: JsonObject, edit: (ecf: Loose) => void = () => {}): { ecf: EcfObject; encf: string } {
  const encf = `E${tipo}${String(Date.now() % 1e6).padStart(6, '0')}${String(++counter).padStart(4, '0')}`;
  const result = validateEcf(sampleEcf(tipo, { ...overrides, Encabezado: { ...(overrides.Encabezado as JsonObject | undefined), IdDoc: { eNCF: encf, ...((overrides.Encabezado as Loose | undefined)?.IdDoc) }, Emisor: { RNCEmisor: EMISOR_RNC } } }));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const ecf = structuredClone(result.document.ecf) as Loose;
  edit(ecf);
  return { ecf, encf };
}

let lastFechaFirma = '';

async function verdict(tipo: 31 | 33 | 34 | 41 | 44 | 45, ecf: EcfObject, encf: string): Promise<Loose> {
  lastFechaFirma = formatFechaHoraFirma(new Date());
  const xml = signXml(buildEcfXml(tipo, ecf, lastFechaFirma), emisor.privateKey, emisor.certificate);
  const sent = await post(`${base}/recepcion/api/facturaselectronicas`, xml, `${EMISOR_RNC}${encf}.xml`, token);
  assert.equal(sent.status, 200, JSON.stringify(sent.json));
  for (;;) {
    const res = await fetch(`${base}/consultaresultado/api/consultas/estado?trackid=${String(sent.json.trackId)}`, { headers: { authorization: `Bearer ${token}` } });
    const json = await res.json() as Loose;
    if (json.codigo !== 3) return json;
    await sleep(PROCESSING_MS);
  }
}

function assertRejected(answer: Loose, pattern: RegExp): void {
  assert.equal(answer.codigo, 2, JSON.stringify(answer));
  assert.equal(answer.secuenciaUtilizada, false);
  assert.ok((answer.mensajes as { valor: string; codigo: number }[]).some((m) => m.codigo === 9 && pattern.test(m.valor)), JSON.stringify(answer.mensajes));
}

describe('the simulator rejects what DGII rejects', () => {
  it('a buyer RNC with a wrong check digit, 000000000 and the issuer itself as buyer of a 31', async () => {
    for (const [rnc, pattern] of [['101672910', /must be 9/], ['000000000', /not a taxpayer/], [EMISOR_RNC, /issuer's own RNC/]] as const) {
      const { ecf, encf } = ecfOf(31, {}, (e) => { e.Encabezado.Comprador.RNCComprador = rnc; });
      assertRejected(await verdict(31, ecf, encf), pattern);
    }
  });

  it('per-type rules: 41 sold by a cédula, 44 identifies its buyer once, 45 bought by the State, TipoPago 2 with FechaLimitePago', async () => {
    const a = ecfOf(41, {}, (e) => { e.Encabezado.Comprador.RNCComprador = '101672919'; });
    assertRejected(await verdict(41, a.ecf, a.encf), /cédula \(11 digits\)/);
    const b = ecfOf(45, {}, (e) => { e.Encabezado.Comprador.RNCComprador = '101672919'; });
    assertRejected(await verdict(45, b.ecf, b.encf), /government body/);
    const both = ecfOf(44, {}, (e) => { e.Encabezado.Comprador.IdentificadorExtranjero = 'PA1234567'; });
    assertRejected(await verdict(44, both.ecf, both.encf), /left out when RNCComprador is sent/);
    const c = ecfOf(31, {}, (e) => { delete e.Encabezado.IdDoc.FechaLimitePago; });
    assertRejected(await verdict(31, c.ecf, c.encf), /FechaLimitePago is required when TipoPago is 2/);
  });

  it('an expired sequence', async () => {
    const expired = toDgiiDate(addDays(dominicanToday(), -1));
    const { ecf, encf } = ecfOf(31, {}, (e) => { e.Encabezado.IdDoc.FechaVencimientoSecuencia = expired; });
    assertRejected(await verdict(31, ecf, encf), new RegExp(`expired on ${expired}`));
  });

  it('a note against an e-CF it accepted: its date, its buyer and, for a 34, what is left to credit', async () => {
    const original = ecfOf(31, {});
    assert.equal((await verdict(31, original.ecf, original.encf)).codigo, 1);
    const ref = { InformacionReferencia: { NCFModificado: original.encf } };
    const wrongDate = ecfOf(34, ref, (e) => { e.InformacionReferencia.FechaNCFModificado = '14-03-2025'; });
    assertRejected(await verdict(34, wrongDate.ecf, wrongDate.encf), /must be 15-03-2025/);
    const wrongBuyer = ecfOf(33, ref, (e) => { e.Encabezado.Comprador.RNCComprador = '401506254'; });
    assertRejected(await verdict(33, wrongBuyer.ecf, wrongBuyer.encf), /must be 101672919, the buyer/);
    for (let i = 0; i < 2; i++) {
      const credit = ecfOf(34, ref);
      assert.equal((await verdict(34, credit.ecf, credit.encf)).codigo, 1);
    }
    const tooMuch = ecfOf(34, ref);
    assertRejected(await verdict(34, tooMuch.ecf, tooMuch.encf), /must not exceed 4567\.00/);
  });
});

describe('the commercial-approval service', () => {
  const BUYER = '101672919';
  let buyer: DgiiCredentials;
  let buyerToken: string;
  before(async () => {
    buyer = certs.make(`/CN=Comprador SRL/serialNumber=${BUYER}`);
    const seed = await (await fetch(`${base}/autenticacion/api/autenticacion/semilla`)).text();
    buyerToken = String((await post(`${base}/autenticacion/api/autenticacion/validarsemilla`, signXml(seed, buyer.privateKey, buyer.certificate), 'semilla.xml')).json.token);
  });

  function acecf(encf: string, signer = buyer): string {
    const xml = buildAcecfXml({ rncEmisor: EMISOR_RNC, encf, fechaEmision: '15-03-2025', montoTotal: '112467.00', rncComprador: BUYER, estado: 1, fechaHoraAprobacion: new Date() });
    return signXml(xml, signer.privateKey, signer.certificate);
  }
  const approve = (xml: string, filename: string) => post(`${base}/aprobacioncomercial/api/aprobacioncomercial`, xml, filename, buyerToken);

  it('takes a signed ACECF named {RNCComprador}{eNCF}.xml about an e-CF it accepted, and refuses the rest with DGII\'s messages', async () => {
    const original = ecfOf(31, {});
    assert.equal((await verdict(31, original.ecf, original.encf)).codigo, 1);
    const good = acecf(original.encf);
    const wrongName = await approve(good, `${EMISOR_RNC}${original.encf}.xml`);
    assert.equal(wrongName.status, 400);
    assert.match(String(wrongName.json.mensaje ?? JSON.stringify(wrongName.json)), new RegExp(`debe llamarse ${BUYER}${original.encf}\\.xml`));
    const ok = await approve(good, `${BUYER}${original.encf}.xml`);
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(ok.json.codigo, '01');

    const tampered = good.replace('<Estado>1</Estado>', '<Estado>2</Estado>');
    assert.match(JSON.stringify((await approve(tampered, `${BUYER}${original.encf}.xml`)).json), /La firma del XML no es válida/);
    const unknown = `E31${String(Date.now() % 1e6).padStart(6, '0')}9999`;
    assert.match(JSON.stringify((await approve(acecf(unknown), `${BUYER}${unknown}.xml`)).json), /Factura no encontrada/);
    const consumer = 'E320000000001';
    assert.match(JSON.stringify((await approve(acecf(consumer), `${BUYER}${consumer}.xml`)).json), /no es requerida para este tipo/);
  });
});

it('answers token dates as DGII writes them: yyyy-MM-ddTHH:mm:ssZ, no milliseconds', () => {
  for (const date of [tokenAnswer.expira, tokenAnswer.expedido]) assert.match(String(date), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  assert.equal(Date.parse(String(tokenAnswer.expira)) - Date.parse(String(tokenAnswer.expedido)), 3_600_000);
});

it('the timbre page shows the e-CF only when MontoTotal and the dates are its own', async () => {
  const { ecf, encf } = ecfOf(31, {});
  assert.equal((await verdict(31, ecf, encf)).codigo, 1);
  const page = async (changes: Record<string, string>) => {
    const values: Record<string, string> = { RncEmisor: EMISOR_RNC, ENCF: encf, FechaEmision: '15-03-2025', MontoTotal: '112467.00', FechaFirma: lastFechaFirma, ...changes };
    return (await fetch(`${sim.url}/testecf/ConsultaTimbre?${new URLSearchParams(values).toString()}`)).text();
  };
  assert.match(await page({}), /<td>Aceptado<\/td>/);
  assert.match(await page({ MontoTotal: '112467.01' }), /Datos no válidos: El MontoTotal no corresponde/);
  assert.match(await page({ FechaEmision: '16-03-2025' }), /Datos no válidos: La FechaEmision no corresponde/);
  assert.match(await page({ FechaFirma: '01-01-2025 00:00:00' }), /Datos no válidos: La FechaFirma no corresponde/);
});

it('the directory answers a number with a wrong check digit as invalid, and an unknown valid one as not listed', async () => {
  const ask = async (rnc: string) => {
    const res = await fetch(`${base}/consultadirectorio/api/consultas/obtenerdirectorioporrnc?rnc=${rnc}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, text: await res.text() };
  };
  const bad = await ask('101672910');
  assert.equal(bad.status, 400);
  assert.match(bad.text, /dígito verificador/);
  const unknown = await ask('401506254');
  assert.equal(unknown.status, 404);
  assert.match(unknown.text, /no figura en el directorio/);
});
