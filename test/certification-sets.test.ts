import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, crc32 } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleEcf } from './fixtures/ecf.ts';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { postulacionXml } from './helpers/postulacion.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';
import { csv, flattenEcf, table, xlsx } from './helpers/workbook.ts';
import { STEP_KEYS } from '../src/certification/steps.ts';

// DGII's test set end to end, through the in-process DGII simulator: a workbook the test builds
// (several e-CF types, a type 32 under RD$250,000 sent as RFCE, a credit note, two commercial
// approvals) is imported, every case validated first, sent in DGII's order until each is
// accepted; with the signed postulación and the portal's steps marked, every step of the
// progress is completado.

type Tenant = Awaited<ReturnType<typeof newTenantWithCertificate>>;
let t: TestService;
let dir = '';
before(async () => {
  t = await startTestService({ env: { ...FAST_PIPELINE, RATE_LIMIT_SENSITIVE_PER_MINUTE: '1000', EXCHANGE_RETRY_BASE_MS: '20', EXCHANGE_RETRY_MAX_MS: '50' } });
  dir = await mkdtemp(join(tmpdir(), 'ecf-sets-'));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const OTHER_EMISOR = '131880681';

/** A case as DGII's workbook has it: CasoPrueba, the e-CF's columns, and the FechaHoraFirma of DGII's example (the service signs anew). */
function ecfRow(a: Tenant, tipo: 31 | 32 | 34 | 43, caso: string): Record<string, string> {
  return { CasoPrueba: caso, ...flattenEcf(sampleEcf(tipo, { Encabezado: { Emisor: { RNCEmisor: a.rnc } } }) as { ECF: Record<string, unknown> }), FechaHoraFirma: '13-11-2023 16:35:54' };
}

function approvalRows(a: Tenant): Record<string, string>[] {
  return [
    { Version: '1.0', RNCEmisor: OTHER_EMISOR, eNCF: 'E310000000005', FechaEmision: '01-04-2020', MontoTotal: '45253.00', RNCComprador: a.rnc, Estado: '1', DetalleMotivoRechazo: '#e', FechaHoraAprobacionComercial: '13-11-2023 16:35:54' },
    { Version: '1.0', RNCEmisor: OTHER_EMISOR, eNCF: 'E330000000001', FechaEmision: '02-04-2020', MontoTotal: '400000.00', RNCComprador: a.rnc, Estado: '2', DetalleMotivoRechazo: 'Precio distinto al acordado', FechaHoraAprobacionComercial: '13-11-2023 16:35:54' },
  ];
}

async function workbook(a: Tenant): Promise<Buffer> {
  // The credit note comes first in the sheet: the service, not the sheet, puts it after the document it modifies.
  const ecf = [ecfRow(a, 34, 'NC-1'), ecfRow(a, 31, 'FCF-1'), ecfRow(a, 43, 'GM-1'), ecfRow(a, 32, 'FC-1')];
  return xlsx([{ name: 'ECF', rows: table(ecf) }, { name: 'ACECF', rows: table(approvalRows(a)) }, { name: 'Instrucciones', rows: [['Lea las instrucciones'], ['del portal']] }]);
}

const bearer = (a: Tenant) => ({ authorization: `Bearer ${a.accessToken}` });

async function importSet(a: Tenant, body: Buffer | string) {
  return call(t.url, 'POST', '/CerteCF/certificacion/set', { body, headers: { ...bearer(a), 'content-type': 'application/octet-stream', 'x-nombre-archivo': 'SetPruebas.xlsx' } });
}

test('a set from a workbook is validated, sent to CerteCF in DGII\'s order and accepted; with the portal\'s steps every step is completado', async () => {
  const a = await newTenantWithCertificate(t.url);
  const imported = await importSet(a, await workbook(a));
  assert.equal(imported.status, 201, imported.text);
  const set = imported.body.data;
  assert.deepEqual(set.hojasIgnoradas, ['Hoja Instrucciones']);
  assert.deepEqual(set.casos.map((c: Loose) => [c.caso, c.fase, c.encf]), [
    ['FC-1', 1, 'E320000000001'], ['FCF-1', 2, 'E310000000001'], ['GM-1', 2, 'E430000000001'], ['NC-1', 3, 'E340000000001'],
    ['Hoja ACECF fila 2', 4, 'E310000000005'], ['Hoja ACECF fila 3', 4, 'E330000000001'],
  ]);
  assert.ok(set.casos.every((c: Loose) => c.estado === 'pendiente'));
  const before = (await call(t.url, 'GET', '/CerteCF/certificacion', { headers: bearer(a) })).body.data.pasos;
  assert.equal(before[1].estado, 'pendiente');
  assert.match(before[1].faltante, /4 de 4 casos de e-CF/);

  // Each call sends the next phase once the previous is accepted; a phase never starts early.
  const seen: Loose[] = [];
  const done = await waitFor(async () => {
    const r = await call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) });
    assert.equal(r.status, 200, r.text);
    const cases: Loose[] = r.body.data.casos;
    seen.push(cases);
    for (const c of cases) {
      if (c.estado === 'pendiente') continue;
      for (const earlier of cases.filter((x) => x.fase < c.fase)) assert.equal(earlier.estado, 'aceptado', `${c.caso} went before ${earlier.caso} was accepted`);
    }
    assert.ok(cases.every((c) => c.estado !== 'rechazado'), JSON.stringify(cases.filter((c) => c.estado === 'rechazado')));
    return cases.every((c) => c.estado === 'aceptado') ? r.body.data : undefined;
  }, 60_000, 'every case aceptado');
  assert.deepEqual(done.resumen, { ecf: { total: 4, aceptados: 4, rechazados: 0, pendientes: 0 }, aprobaciones: { total: 2, aceptados: 2, rechazados: 0, pendientes: 0 } });
  assert.ok(seen.length >= 4, 'four phases, each sent after the one before');

  const docs = await t.sql<{ encf: string; estado: string; created_at: Date }[]>`select encf, estado, created_at from documents where tenant_id = ${a.tenantId} and environment = 'CerteCF' order by created_at`;
  assert.deepEqual(docs.map((d) => d.encf), ['E320000000001', ...docs.slice(1, 3).map((d) => d.encf).sort(), 'E340000000001']);
  assert.deepEqual(docs.slice(1, 3).map((d) => d.encf).sort(), ['E310000000001', 'E430000000001']);
  const approvals = await t.sql<{ encf: string; estado: string; dgiiEstado: string }[]>`select encf, estado, dgii_estado from commercial_approval_requests where tenant_id = ${a.tenantId} order by encf`;
  assert.deepEqual(approvals.map((x) => [x.encf, x.estado, x.dgiiEstado]), [['E310000000005', 'aprobado', 'enviado'], ['E330000000001', 'rechazado', 'enviado']]);

  // The printed-representation review: the PDF and XML of each e-CF, in one ZIP.
  const review = await fetch(`${t.url}/CerteCF/certificacion/set/revision.zip`, { headers: bearer(a) });
  assert.equal(review.status, 200);
  const zipFile = join(dir, 'revision.zip');
  await writeFile(zipFile, Buffer.from(await review.arrayBuffer()));
  const listed = spawnSync('unzip', ['-Z1', zipFile], { encoding: 'utf8' });
  assert.equal(spawnSync('unzip', ['-tq', zipFile], { encoding: 'utf8' }).status, 0, 'unzip -t passes');
  const names = listed.stdout.trim().split('\n').sort();
  assert.deepEqual(names, ['E310000000001.pdf', 'E310000000001.xml', 'E320000000001.pdf', 'E320000000001.xml', 'E340000000001.pdf', 'E340000000001.xml', 'E430000000001.pdf', 'E430000000001.xml', 'LEAME.txt']);
  spawnSync('unzip', ['-o', '-q', zipFile, 'E340000000001.pdf', '-d', dir]);
  const text = spawnSync('pdftotext', [join(dir, 'E340000000001.pdf'), '-'], { encoding: 'utf8' });
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /E340000000001/);

  // Running it again changes nothing; a case whose record was lost is found by its eNCF, not emitted twice.
  await t.sql`update certification_cases set estado = 'pendiente', document_id = null where set_id = ${done.id} and encf = 'E340000000001'`;
  const again = await call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) });
  const resumed = await waitFor(async () => {
    const r = await call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) });
    return r.body.data.casos.every((c: Loose) => c.estado === 'aceptado') ? r.body.data : undefined;
  }, 20_000, 'resumed');
  assert.equal(again.status, 200);
  assert.ok(resumed.casos.find((c: Loose) => c.encf === 'E340000000001').documentId !== null);
  const [count] = await t.sql<{ n: number }[]>`select count(*)::int as n from documents where tenant_id = ${a.tenantId}`;
  assert.equal(count?.n, 4, 'no document emitted twice');

  // The portal's own steps: the postulación signed here, the others marked by the taxpayer.
  assert.equal((await call(t.url, 'POST', '/CerteCF/certificacion/firmar', { body: postulacionXml(a.rnc), headers: { ...bearer(a), 'content-type': 'application/xml' } })).status, 200);
  const progress0 = (await call(t.url, 'GET', '/CerteCF/certificacion', { headers: bearer(a) })).body.data;
  const byKey = new Map(progress0.pasos.map((p: Loose) => [p.clave, p]));
  for (const k of ['postulacion', 'datos_ecf', 'datos_aprobacion_comercial']) assert.deepEqual([(byKey.get(k) as Loose).estado, (byKey.get(k) as Loose).origen], ['completado', 'servicio'], k);
  for (const p of progress0.pasos.filter((x: Loose) => x.estado !== 'completado')) {
    const r = await call(t.url, 'PUT', `/CerteCF/certificacion/pasos/${p.clave}`, { json: { estado: 'completado' }, headers: bearer(a) });
    assert.equal(r.status, 200, r.text);
  }
  const final = (await call(t.url, 'GET', '/CerteCF/certificacion', { headers: bearer(a) })).body.data;
  assert.deepEqual(final.pasos.map((p: Loose) => p.clave), STEP_KEYS);
  assert.ok(final.pasos.every((p: Loose) => p.estado === 'completado'), JSON.stringify(final.pasos.filter((p: Loose) => p.estado !== 'completado')));
  assert.equal(final.completados, 15);
});

test('a set with an invalid case is refused whole, naming the case; nothing is stored or sent', async () => {
  const a = await newTenantWithCertificate(t.url);
  const good = ecfRow(a, 31, 'FCF-1');
  const bad = { ...ecfRow(a, 31, 'FCF-2'), eNCF: 'E310000000002', MontoTotal: 'mucho' };
  const otherBuyer = { ...approvalRows(a)[0], RNCComprador: '101672919' } as Record<string, string>;
  const res = await importSet(a, await xlsx([{ name: 'ECF', rows: table([good, bad]) }, { name: 'ACECF', rows: table([otherBuyer]) }]));
  assert.equal(res.status, 422, res.text);
  const paths = res.body.error.details.map((d: Loose) => d.path);
  assert.ok(paths.some((p: string) => p.startsWith('FCF-2: ')), JSON.stringify(paths));
  assert.ok(paths.some((p: string) => p.startsWith('Hoja ACECF fila 2: RNCComprador')), JSON.stringify(paths));
  assert.ok(!paths.some((p: string) => p.startsWith('FCF-1')));
  const [n] = await t.sql<{ n: number }[]>`select count(*)::int as n from certification_sets where tenant_id = ${a.tenantId}`;
  assert.equal(n?.n, 0);
  assert.equal((await call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) })).status, 404);
  assert.equal((await call(t.url, 'GET', '/CerteCF/certificacion/set/revision.zip', { headers: bearer(a) })).status, 404);
  const none = await call(t.url, 'GET', '/CerteCF/certificacion/set', { headers: bearer(a) });
  assert.deepEqual([none.status, none.body.data], [200, null]);
});

test('a case DGII rejects stops the set at its phase, with DGII\'s reason; the progress shows the step in error', async () => {
  const a = await newTenantWithCertificate(t.url);
  const rejected = { CasoPrueba: 'FCF-1', ...flattenEcf(sampleEcf(31, { Encabezado: { Emisor: { RNCEmisor: a.rnc, InformacionAdicionalEmisor: '[simulador:rechazar]' } } }) as { ECF: Record<string, unknown> }) };
  assert.equal((await importSet(a, await xlsx([{ name: 'ECF', rows: table([rejected, ecfRow(a, 34, 'NC-1')]) }]))).status, 201);
  const stopped = await waitFor(async () => {
    const r = await call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) });
    return r.body.data.casos[0].estado === 'rechazado' ? r.body.data : undefined;
  }, 30_000, 'the rejection');
  assert.ok(typeof stopped.casos[0].detalle === 'string' && stopped.casos[0].detalle.length > 0, 'DGII\'s reason');
  const again = (await call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) })).body.data;
  assert.equal(again.casos[1].estado, 'pendiente', 'the note waits');
  const [n] = await t.sql<{ n: number }[]>`select count(*)::int as n from documents where tenant_id = ${a.tenantId}`;
  assert.equal(n?.n, 1);
  const step = (await call(t.url, 'GET', '/CerteCF/certificacion', { headers: bearer(a) })).body.data.pasos[1];
  assert.equal(step.estado, 'error');
  assert.match(step.faltante, /1 de 2 casos de e-CF rechazados/);
});

test('runs made at once (two tabs) send each case once and mark none rejected', async () => {
  const a = await newTenantWithCertificate(t.url);
  assert.equal((await importSet(a, await xlsx([{ name: 'ECF', rows: table([ecfRow(a, 31, 'FCF-1'), ecfRow(a, 43, 'GM-1')]) }, { name: 'ACECF', rows: table(approvalRows(a)) }]))).status, 201);
  const run = () => call(t.url, 'POST', '/CerteCF/certificacion/set/enviar', { headers: bearer(a) });
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all([run(), run(), run()]);
    for (const r of answers) {
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.data.casos.every((c: Loose) => c.estado !== 'rechazado'), JSON.stringify(r.body.data.casos));
    }
    await waitFor(async () => (await run()).body.data.casos.every((c: Loose) => c.estado !== 'enviado'), 20_000, 'the phase judged');
  }
  const done = (await run()).body.data;
  assert.ok(done.casos.every((c: Loose) => c.estado === 'aceptado'), JSON.stringify(done.casos));
  const [docs] = await t.sql<{ n: number }[]>`select count(*)::int as n from documents where tenant_id = ${a.tenantId}`;
  const [approvals] = await t.sql<{ n: number }[]>`select count(*)::int as n from commercial_approval_requests where tenant_id = ${a.tenantId}`;
  assert.deepEqual([docs?.n, approvals?.n], [2, 2]);
});

test('the same cases as CSV are imported; an unreadable file, a zip bomb and an API key are refused', async () => {
  const a = await newTenantWithCertificate(t.url);
  const res = await importSet(a, csv(table(approvalRows(a))));
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.body.data.casos.map((c: Loose) => [c.clase, c.encf, c.fase]), [['aprobacion', 'E310000000005', 4], ['aprobacion', 'E330000000001', 4]]);
  const ecfCsv = await importSet(a, csv(table([ecfRow(a, 31, 'FCF-1'), ecfRow(a, 32, 'FC-1')])));
  assert.equal(ecfCsv.status, 201, ecfCsv.text);
  assert.deepEqual(ecfCsv.body.data.casos.map((c: Loose) => c.caso), ['FC-1', 'FCF-1'], 'the new set replaced the previous one');

  // One entry that says it is 1 KiB but inflates to 50 MiB of zeros.
  const payload = deflateRawSync(Buffer.alloc(50 * 1024 * 1024));
  const name = Buffer.from('xl/workbook.xml');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc32(Buffer.alloc(1024)), 14); local.writeUInt32LE(payload.length, 18); local.writeUInt32LE(1024, 22); local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc32(Buffer.alloc(1024)), 16); central.writeUInt32LE(payload.length, 20); central.writeUInt32LE(1024, 24); central.writeUInt16LE(name.length, 28);
  const centralOffset = local.length + name.length + payload.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(1, 8); end.writeUInt16LE(1, 10); end.writeUInt32LE(central.length + name.length, 12); end.writeUInt32LE(centralOffset, 16);
  const bomb = Buffer.concat([local, name, payload, central, name, end]);
  const refused = await importSet(a, bomb);
  assert.equal(refused.status, 422, refused.text);
  assert.match(refused.body.error.details[0].message, /larger than it says|not the size/);

  const damaged = await importSet(a, Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(100)]));
  assert.equal(damaged.status, 422);
  assert.equal((await importSet(a, Buffer.from([0xff, 0xfe, 0x00]))).status, 422);
  const key = await call(t.url, 'POST', '/CerteCF/certificacion/set', { body: csv(table(approvalRows(a))), headers: { 'x-api-key': a.apiKey } });
  assert.equal(key.status, 401);
  const production = await call(t.url, 'POST', '/eCF/certificacion/set', { body: csv(table(approvalRows(a))), headers: { ...bearer(a), 'content-type': 'text/csv' } });
  assert.equal(production.status, 409, 'never to production');
  assert.equal((await call(t.url, 'POST', '/eCF/certificacion/set/enviar', { headers: bearer(a) })).status, 409);
});
