import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../src/log.ts';
import { createDgiiSimulator, runSimulatorFromArgs, SimulatorArgsError, type DgiiSimulator } from '../src/dgii/simulator/index.ts';
import { parseHora, readEstatusAnswer, readVentanasAnswer, readVerificarAnswer } from '../src/dgii/protocol/status-answers.ts';
import { call, client, newTenant } from './helpers/http.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { ecfFor, FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// DGII's "Estatus Servicios" end to end: the service (TAX_AUTHORITY=dgii) pointed at a DGII
// simulator running as a real HTTP server, whose maintenance windows the tests set.

const API_KEY = 'clave-de-prueba-123';
let simulator: DgiiSimulator;
let simUrl: string;
let t: TestService;

function serviceEnv(): Record<string, string> {
  const env: Record<string, string> = {
    ...FAST_PIPELINE,
    TAX_AUTHORITY: 'dgii',
    DGII_STATUS_URL: simUrl,
    DGII_STATUS_API_KEY: API_KEY,
    DGII_MAINTENANCE_MARGIN_MS: '100',
    DGII_TIMEOUT_MS: '2000',
  };
  for (const [e, path] of [['TESTECF', 'testecf'], ['CERTECF', 'certecf'], ['ECF', 'ecf']]) {
    env[`DGII_BASE_URL_${e}`] = `${simUrl}/${path}`;
    env[`DGII_FC_BASE_URL_${e}`] = `${simUrl}/fc/${path}`;
  }
  return env;
}

before(async () => {
  simulator = createDgiiSimulator({ processingMs: 50, log: createLogger('silent'), statusApiKey: API_KEY });
  ({ url: simUrl } = await simulator.listen(0, '127.0.0.1'));
  t = await startTestService({ env: serviceEnv(), captureLog: true });
});
after(async () => {
  await t.close();
  await simulator.close();
});

async function metrics(url: string): Promise<string> {
  const res = await call(url, 'GET', '/metrics');
  assert.equal(res.status, 200);
  return res.text;
}

describe('DGII service status', () => {
  test('the answers are read as DGII documents them, hours on Santo Domingo\'s clock', () => {
    const ventanas = readVentanasAnswer({
      ventanaMantenimientos: [
        { ambiente: 'PreCertificacion', horaInicio: '9:00 AM', horaFin: '12:00 PM', dias: ['06-08-2020', '20-08-2020'] },
        { ambiente: 'Produccion', horaInicio: '10:00 PM', horaFin: '2:00 AM', dias: ['22-09-2020', '31-02-2020'] },
        { ambiente: 'Luna', horaInicio: '1:00 PM', horaFin: '4:00 PM', dias: ['06-08-2020'] },
      ],
    });
    assert.ok('value' in ventanas);
    assert.deepEqual(ventanas.value.map((w) => [w.environment, new Date(w.start).toISOString(), new Date(w.end).toISOString()]), [
      ['TesteCF', '2020-08-06T13:00:00.000Z', '2020-08-06T16:00:00.000Z'],
      ['TesteCF', '2020-08-20T13:00:00.000Z', '2020-08-20T16:00:00.000Z'],
      // Past midnight: it ends the next day. 31-02 is no date and is skipped.
      ['eCF', '2020-09-23T02:00:00.000Z', '2020-09-23T06:00:00.000Z'],
    ]);
    assert.deepEqual([parseHora('12:00 AM'), parseHora('12:30 PM'), parseHora('1:05:30 pm'), parseHora('13:00'), parseHora('13:00 PM'), parseHora('9'), parseHora(9)], [0, 45_000, 47_130, 46_800, null, null, null]);
    const estatus = readEstatusAnswer([{ servicio: 'Recepción', estatus: 'Disponible', ambiente: 'Produccion' }, { servicio: 'Recepción FC', estatus: 'Disponible', ambiente: 'Certificacion' }, 'basura']);
    assert.deepEqual(estatus, { value: [{ environment: 'eCF', servicio: 'Recepción', estatus: 'Disponible' }, { environment: 'CerteCF', servicio: 'Recepción FC', estatus: 'Disponible' }] });
    assert.deepEqual(readVerificarAnswer({ estado: 'No Disponible' }), { value: 'No Disponible' });
    for (const garbled of [null, 'Disponible', [], { estado: 'Quizás' }, { estado: 7 }]) assert.ok('problem' in readVerificarAnswer(garbled));
    for (const garbled of [null, '<html>', [], { ventanaMantenimientos: [{ ambiente: 'Produccion', horaInicio: 'nueve', horaFin: '12:00 PM', dias: ['06-08-2020'] }] }]) assert.ok('problem' in readVentanasAnswer(garbled));
    assert.ok('problem' in readEstatusAnswer({ servicio: 'Recepción' }));
  });

  test('GET /{env}/dgii/estatus answers DGII\'s estado, the services and the published windows, and /metrics exports them', async () => {
    const a = await newTenant(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const now = Date.now();
    const later = { start: Math.floor((now + 3_600_000) / 60_000) * 60_000, end: Math.floor((now + 7_200_000) / 60_000) * 60_000 };
    const current = { start: Math.floor((now - 120_000) / 60_000) * 60_000, end: Math.floor((now + 3_600_000) / 60_000) * 60_000 };
    simulator.setMaintenance('eCF', later);
    simulator.setMaintenance('CerteCF', current);
    try {
      await t.service.dgiiStatus.refresh();
      const ecf = await call(t.url, 'GET', '/eCF/dgii/estatus', { headers });
      assert.equal(ecf.status, 200, ecf.text);
      const d = ecf.body.data;
      assert.equal(d.environment, 'eCF');
      assert.equal(d.estado, 'Disponible');
      assert.equal(d.services.length, 9);
      assert.ok(d.services.every((s: { estatus: string }) => s.estatus === 'Disponible'));
      assert.ok(d.services.some((s: { servicio: string }) => s.servicio === 'Recepción'));
      assert.deepEqual(d.maintenanceWindows, [{ start: new Date(later.start).toISOString(), end: new Date(later.end).toISOString() }]);
      assert.equal(d.inMaintenance, false);
      assert.equal(d.maintenanceUntil, null);
      assert.equal(d.error, null);
      assert.ok(Date.parse(d.checkedAt) >= now);

      const certecf = (await call(t.url, 'GET', '/CerteCF/dgii/estatus', { headers })).body.data;
      assert.equal(certecf.estado, 'No Disponible');
      assert.equal(certecf.inMaintenance, true);
      assert.equal(certecf.maintenanceUntil, new Date(current.end).toISOString());
      assert.ok(certecf.services.every((s: { estatus: string }) => s.estatus === 'No Disponible'));

      const text = await metrics(t.url);
      assert.match(text, /^ecf_dgii_maintenance_window\{environment="CerteCF"\} 1$/m);
      assert.match(text, /^ecf_dgii_maintenance_window\{environment="eCF"\} 0$/m);
      assert.match(text, /^ecf_dgii_available\{environment="CerteCF"\} 0$/m);
      assert.match(text, /^ecf_dgii_available\{environment="eCF"\} 1$/m);
      assert.match(text, /^ecf_dgii_requests_total\{service="verificarEstado",outcome="ok"\} \d+$/m);

      const anonymous = await call(t.url, 'GET', '/eCF/dgii/estatus');
      assert.equal(anonymous.status, 401);
    } finally {
      simulator.setMaintenance('eCF', null);
      simulator.setMaintenance('CerteCF', null);
      await t.service.dgiiStatus.refresh();
    }
  });

  test('a document emitted during a published window is not sent, spends no attempt, and is sent once the window ends', async () => {
    const a = await newTenantWithCertificate(t.url);
    const headers = { 'x-api-key': a.apiKey };
    const received = simulator.counters().documentsReceived;
    const window = { start: Date.now() - 60_000, end: Date.now() + 6000 };
    simulator.setMaintenance('TesteCF', window);
    await t.service.dgiiStatus.refresh();
    const publishedEnd = Math.ceil(window.end / 1000) * 1000;
    // Without the pause the upload would meet DGII down.
    const direct = await fetch(`${simUrl}/testecf/recepcion/api/facturaselectronicas`, { method: 'POST' });
    assert.equal(direct.status, 503);

    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: ecfFor(a.rnc), headers });
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.internalTrackId as string;
    const job = await waitFor(async () => {
      const [row] = await t.sql<{ attempts: number; runAt: Date; lockedBy: string | null }[]>`
        select attempts, run_at as "runAt", locked_by as "lockedBy" from jobs where kind = 'document.submit' and payload ->> 'documentId' = ${id}`;
      return row !== undefined && row.lockedBy === null && row.runAt.getTime() >= publishedEnd ? row : undefined;
    }, 5000, 'the submission put off to the window\'s end');
    assert.equal(job.attempts, 0, 'the planned wait spent no attempt');
    assert.ok(job.runAt.getTime() <= publishedEnd + 100 + 1000, `run at the window's end plus the margin, not later (${job.runAt.toISOString()})`);
    assert.equal(simulator.counters().documentsReceived, received, 'nothing reached DGII during the window');
    assert.equal((await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers })).body.data.estado, 'recibido');
    assert.ok(t.logLines.some((l) => l.includes('published maintenance window') && l.includes(id)));

    const doc = await waitForEstado(t.url, 'TesteCF', id, headers, ['aceptado', 'error'], 30_000);
    assert.equal(doc.estado, 'aceptado', doc.dgiiMessage);
    assert.equal(simulator.counters().documentsReceived, received + 1);
    const sent = doc.history.find((h: { estado: string }) => h.estado === 'en_proceso');
    assert.ok(Date.parse(sent.at) >= publishedEnd, `sent after the window (${sent.at})`);
    simulator.setMaintenance('TesteCF', null);
    await t.service.dgiiStatus.refresh();
  });

  test('an annulment requested during a published window is sent once the window ends, spending no attempt', async () => {
    const a = await newTenantWithCertificate(t.url);
    const api = client(t.url, { 'x-api-key': a.apiKey });
    const range = await api.post('/TesteCF/secuencias', { json: { tipo: 31, desde: 'E310000000001', hasta: 'E310000000100', fechaVencimiento: '31-12-2099' } });
    assert.equal(range.status, 201, range.text);
    const received = simulator.counters().annulmentsReceived;
    const window = { start: Date.now() - 60_000, end: Date.now() + 5000 };
    simulator.setMaintenance('TesteCF', window);
    await t.service.dgiiStatus.refresh();
    const publishedEnd = Math.ceil(window.end / 1000) * 1000;
    try {
      const made = await api.post('/TesteCF/anulaciones', { json: { tipo: 31, desde: 'E310000000051', hasta: 'E310000000100' } });
      assert.equal(made.status, 202, made.text);
      const id = made.body.data.id as string;
      const job = await waitFor(async () => {
        const [row] = await t.sql<{ attempts: number; runAt: Date; lockedBy: string | null }[]>`
          select attempts, run_at as "runAt", locked_by as "lockedBy" from jobs where kind = 'annulment.submit' and payload ->> 'annulmentId' = ${id}`;
        return row !== undefined && row.lockedBy === null && row.runAt.getTime() >= publishedEnd ? row : undefined;
      }, 4000, 'the annulment put off to the window\'s end');
      assert.equal(job.attempts, 0);
      assert.equal(simulator.counters().annulmentsReceived, received);
      await waitFor(async () => (await api.get(`/TesteCF/anulaciones/${id}`)).body.data.estado === 'aceptado' || undefined, 20_000, 'the annulment accepted');
      assert.equal(simulator.counters().annulmentsReceived, received + 1);
    } finally {
      simulator.setMaintenance('TesteCF', null);
      await t.service.dgiiStatus.refresh();
    }
  });

  test('garbled or failed status answers are reported as unknown or as the last known, and nothing crashes', async () => {
    // A second instance whose first read meets only garbled answers.
    simulator.injectFault({ service: 'obtenerEstatus', answer: { status: 200, body: { servicios: 'todos bien' } } });
    simulator.injectFault({ service: 'obtenerVentanasMantenimiento', answer: { status: 200, body: '<html>Mantenimiento</html>' } });
    simulator.injectFault({ service: 'verificarEstado', answer: { status: 200, body: { estado: 'Quizás' } }, times: 3 });
    const second = await startTestService({ env: serviceEnv(), database: t.database });
    try {
      const a = await newTenant(second.url);
      const res = await call(second.url, 'GET', '/TesteCF/dgii/estatus', { headers: { 'x-api-key': a.apiKey } });
      assert.equal(res.status, 200, res.text);
      const d = res.body.data;
      assert.equal(d.estado, null);
      assert.equal(d.services, null);
      assert.deepEqual(d.maintenanceWindows, []);
      assert.equal(d.inMaintenance, false);
      assert.equal(d.checkedAt, null);
      assert.match(d.error, /obtenerestatus did not answer a JSON list/);
      assert.match(d.error, /ventanaMantenimientos/);
      assert.match(d.error, /verificarestado did not answer/);
      const text = await metrics(second.url);
      assert.doesNotMatch(text, /^ecf_dgii_available\{/m, 'no availability sample while unknown');
      assert.match(text, /^ecf_dgii_maintenance_window\{environment="TesteCF"\} 0$/m);

      // The first instance read DGII before: an unreachable status host keeps what it knew.
      simulator.injectFault({ service: 'verificarEstado', status: 503, times: 3 });
      await t.service.dgiiStatus.refresh();
      const kept = (await call(t.url, 'GET', '/TesteCF/dgii/estatus', { headers: { 'x-api-key': a.apiKey } })).body.data;
      assert.equal(kept.estado, 'Disponible');
      assert.match(kept.error, /DGII answered HTTP 503 while reading DGII's service status/);
      assert.ok(kept.checkedAt !== null);
      assert.ok(!t.logLines.some((l) => l.includes(API_KEY)), 'the API key is never logged');
    } finally {
      simulator.clearFaults();
      await second.close();
    }
  });

  test('the simulator checks the API key of "Estatus Servicios", and its command line sets a window', async () => {
    const path = '/api/estatusservicios/obtenerestatus';
    assert.equal((await fetch(simUrl + path)).status, 401);
    assert.equal((await fetch(simUrl + path, { headers: { authorization: 'Apikey otra-clave' } })).status, 401);
    const ok = await fetch(simUrl + path, { headers: { authorization: `Apikey ${API_KEY}` } });
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as unknown[]).length, 27);

    const running = await runSimulatorFromArgs(['--port', '0', '--maintenance', 'eCF=+0s/+1h'], createLogger('silent'));
    try {
      const estado = async (n: number) => (await (await fetch(`${running.url}/api/estatusservicios/verificarestado?ambiente=${n}`)).json()) as { estado: string };
      assert.deepEqual(await estado(2), { estado: 'No Disponible' });
      assert.deepEqual(await estado(1), { estado: 'Disponible' });
      assert.equal((await fetch(`${running.url}/ecf/recepcion/api/facturaselectronicas`, { method: 'POST' })).status, 503);
      const ventanas = (await (await fetch(`${running.url}/api/estatusservicios/obtenerventanasmantenimiento`)).json()) as { ventanaMantenimientos: { ambiente: string }[] };
      assert.deepEqual(ventanas.ventanaMantenimientos.map((v) => v.ambiente), ['Produccion']);
    } finally {
      await running.simulator.close();
    }
    for (const bad of ['eCF=+1h/+0s', 'Luna=+0s/+1h', 'eCF=ayer/+1h', 'eCF=+0s/+25h']) {
      await assert.rejects(runSimulatorFromArgs(['--port', '0', '--maintenance', bad], createLogger('silent')), SimulatorArgsError, bad);
    }
  });
});
