import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAcecfXml } from '../src/ecf/xml/index.ts';
import { errorMessage } from '../src/errors.ts';
import { signXml } from '../src/xml/index.ts';
import { CertificateFactory, startSimulator, type RunningSimulator } from './helpers/dgii-protocol.ts';
import type { DgiiCredentials } from '../src/dgii/protocol/index.ts';

// The DGII simulator's aprobacioncomercial service checks an ACECF as DGII does in
// certification step 3: acecf.xsd, a valid signature, by a certificate of the RNCComprador,
// who is also the token's holder.

const BUYER = '101672919';
let sim: RunningSimulator;
let certs: CertificateFactory;
let buyer: DgiiCredentials;
let impostor: DgiiCredentials;

before(async () => {
  sim = await startSimulator({ processingMs: 0 });
  certs = new CertificateFactory();
  buyer = certs.make(`/CN=Ferreteria Ochoa SRL/serialNumber=${BUYER}`);
  impostor = certs.make('/CN=Otra Empresa SRL/serialNumber=130458712');
});
after(async () => {
  await sim.simulator.close();
  certs.remove();
});

const acecf = (rncComprador = BUYER, estado: 1 | 2 = 1) => buildAcecfXml({
  rncEmisor: '131880681', encf: 'E310000000001', fechaEmision: '01-04-2020', montoTotal: '7080.00', rncComprador, estado,
  ...(estado === 2 ? { detalleMotivoRechazo: 'Mercancía dañada' } : {}), fechaHoraAprobacion: new Date('2026-11-27T14:00:00Z'),
});

async function send(xml: string, who: DgiiCredentials = buyer): Promise<string> {
  const client = sim.client({ 1: who });
  try {
    const answer = await client.sendApproval(1, 'CerteCF', { fileName: `${BUYER}E310000000001.xml`, xml }, AbortSignal.timeout(10_000));
    return `200 ${answer.codigo ?? ''} ${answer.estado ?? ''}`;
  } catch (err) {
    return errorMessage(err);
  }
}

test('an ACECF signed by the buyer is taken, approved or rejected', async () => {
  assert.match(await send(signXml(acecf(), buyer.privateKey, buyer.certificate)), /^200 01 Aprobación Comercial Aprobada/);
  assert.match(await send(signXml(acecf(BUYER, 2), buyer.privateKey, buyer.certificate)), /^200 02 Aprobación Comercial Rechazada/);
  assert.equal(sim.simulator.counters().approvalsReceived, 2);
});

test('an unsigned, tampered, schema-invalid, impostor-signed or other buyer\'s ACECF is refused', async () => {
  const before = sim.simulator.counters().approvalsReceived;
  assert.match(await send(acecf()), /La firma del XML no es válida/);
  const signed = signXml(acecf(), buyer.privateKey, buyer.certificate);
  assert.match(await send(signed.replace('<Estado>1</Estado>', '<Estado>2</Estado>')), /no es válid/);
  assert.match(await send(signed.replace('<MontoTotal>7080.00</MontoTotal>', '<MontoTotal>7080</MontoTotal>')), /estructura del archivo XML no es válido/);
  assert.match(await send(signXml(acecf(), impostor.privateKey, impostor.certificate)), /firmada por 130458712, no por el comprador 101672919/);
  assert.match(await send(signXml(acecf('130458712'), buyer.privateKey, buyer.certificate)), /RNCComprador 130458712 no corresponde al RNC 101672919/);
  assert.equal(sim.simulator.counters().approvalsReceived, before);
});
