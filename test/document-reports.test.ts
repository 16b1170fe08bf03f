import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTenantWithCertificate } from './helpers/certificates.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { call, type Loose } from './helpers/http.ts';
import { openFilesUnder } from './helpers/process.ts';
import { waitFor } from './helpers/wait.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { encodeQr, qrToSvg } from '../src/lib/qr/index.ts';
import { DocumentReports } from '../src/documents/reports.ts';
import { dominicanToday } from '../src/documents/statistics.ts';
import { DIRECTORY_MEMORY } from '../src/lib/zip/index.ts';

let t: TestService;
let dir: string;
let api: Record<string, string>;
let rnc: string;
let tenantId: number;
const ids: string[] = [];
const BUYER = '130458715';
const HOSTILE = '=HYPERLINK("http://evil.example","pulse")';

before(async () => {
  t = await startTestService({ env: FAST_PIPELINE });
  dir = mkdtempSync(join(tmpdir(), 'ecf-export-'));
  const a = await newTenantWithCertificate(t.url);
  api = { 'x-api-key': a.apiKey };
  rnc = a.rnc;
  tenantId = a.tenantId;
  const buyers = [['101672919', 'Ferretería Ochoa & Asociados SRL'], [BUYER, HOSTILE], [BUYER, 'Textiles, "Zona Franca"']] as const;
  for (const [buyer, name] of buyers) {
    const body = sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: rnc }, Comprador: { RNCComprador: buyer, RazonSocialComprador: name } } });
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { headers: api, json: body });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    ids.push(res.body.data.internalTrackId);
  }
  for (const id of ids) await waitForEstado(t.url, 'TesteCF', id, api, ['aceptado']);
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the documents list filters by buyer RNC, and refuses one that is not an RNC or cédula', async () => {
  const res = await call(t.url, 'GET', `/TesteCF/documentos-ecf?rncComprador=${BUYER}`, { headers: api });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.items.map((d: Loose) => d.rncComprador), [BUYER, BUYER]);
  const bad = await call(t.url, 'GET', '/TesteCF/documentos-ecf?rncComprador=12ab', { headers: api });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.details[0].path, 'query.rncComprador');
});

test('the CSV export is UTF-8 with a BOM, one row per filtered document, formulas neutralised', async () => {
  const res = await fetch(`${t.url}/TesteCF/documentos-ecf/export?format=csv`, { headers: api });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="documentos-TesteCF-\d{4}-\d{2}-\d{2}\.csv"$/);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').split('\r\n');
  assert.equal(lines.pop(), '');
  assert.equal(lines[0], 'eNCF,Tipo,FechaEmision,RNCComprador,RazonSocialComprador,MontoTotal,TotalITBIS,Estado,CodigoSeguridad,Referencia');
  assert.equal(lines.length, 4);
  const text = lines.join('\n');
  assert.ok(text.includes(`,"'=HYPERLINK(""http://evil.example"",""pulse"")",`), text);
  assert.ok(text.includes(',"Textiles, ""Zona Franca""",'), text);
  assert.ok(text.includes(',Ferretería Ochoa & Asociados SRL,'), text);
  assert.match(lines[1] ?? '', /^E31\d{10},31,\d{2}-\d{2}-\d{4},\d+,.*,\d+\.\d{2},\d+(\.\d+)?,aceptado,[0-9A-Za-z+/]{6},$/);

  const filtered = await (await fetch(`${t.url}/TesteCF/documentos-ecf/export?format=csv&rncComprador=${BUYER}`, { headers: api })).text();
  assert.equal(filtered.split('\r\n').length - 2, 2, 'header and two rows');
});

test('the ZIP export holds every signed XML as {RNCEmisor}{eNCF}.xml and passes unzip -t', async () => {
  const res = await fetch(`${t.url}/TesteCF/documentos-ecf/export?format=zip`, { headers: api });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/zip');
  const file = join(dir, 'export.zip');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  const check = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /No errors detected/);
  for (const id of ids) {
    const doc = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: api })).body.data;
    const xml = await (await fetch(`${t.url}/TesteCF/documentos-ecf/${id}/xml`, { headers: api })).text();
    const inZip = spawnSync('unzip', ['-p', file, `${rnc}${doc.encf}.xml`]);
    assert.equal(inZip.stdout.toString('utf8'), xml, 'the entry is the signed XML byte for byte');
  }
});

test('an export without a known format, or with a bad filter, is a 422', async () => {
  for (const q of ['', 'format=xlsx', 'format=csv&estado=nada']) {
    const res = await call(t.url, 'GET', `/TesteCF/documentos-ecf/export?${q}`, { headers: api });
    assert.equal(res.status, 422, q);
  }
});

test('estadisticas counts by estado for today, the month and the range, per day, with the acceptance rate', async () => {
  const res = await call(t.url, 'GET', '/TesteCF/estadisticas', { headers: api });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const s = res.body.data;
  const today = dominicanToday();
  // The sample documents carry their own FechaEmision: count what the list says per day.
  const docs = (await call(t.url, 'GET', '/TesteCF/documentos-ecf', { headers: api })).body.data.items as Loose[];
  const isoDays = docs.map((d) => d.fechaEmision.split('-').reverse().join('-'));
  assert.equal(s.range.hasta, today);
  assert.equal(s.range.perDay.length, 30);
  const inRange = isoDays.filter((d) => d >= s.range.desde && d <= s.range.hasta).length;
  assert.equal(s.range.total, inRange);
  assert.equal(s.range.perDay.reduce((n: number, d: Loose) => n + d.total, 0), inRange);
  assert.equal(s.today.total, isoDays.filter((d) => d === today).length);
  assert.deepEqual(s.deliveries, { failing: 0, abandoned: 0 });

  const sorted = [...isoDays].sort();
  const wideRes = await call(t.url, 'GET', `/TesteCF/estadisticas?desde=${sorted[0]}&hasta=${sorted[sorted.length - 1]}`, { headers: api });
  assert.equal(wideRes.status, 200, JSON.stringify(wideRes.body));
  const wide = wideRes.body.data;
  assert.equal(wide.range.total, 3);
  assert.equal(wide.range.byEstado.aceptado, 3);
  assert.equal(wide.range.acceptanceRate, 1);
  const other = (await call(t.url, 'GET', '/CerteCF/estadisticas', { headers: api })).body.data;
  assert.equal(other.range.total, 0);
  assert.equal(other.range.acceptanceRate, null);

  for (const q of ['desde=2025-02-01&hasta=2025-01-01', 'desde=2020-01-01&hasta=2025-01-01', 'desde=ayer', 'x=1']) {
    assert.equal((await call(t.url, 'GET', `/TesteCF/estadisticas?${q}`, { headers: api })).status, 422, q);
  }
});

test('the timbre QR is served as SVG holding timbreUrl; a document of another tenant is 404', async () => {
  const id = ids[0] ?? '';
  const doc = (await call(t.url, 'GET', `/TesteCF/documentos-ecf/${id}`, { headers: api })).body.data;
  const res = await fetch(`${t.url}/TesteCF/documentos-ecf/${id}/qr.svg`, { headers: api });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
  const svg = await res.text();
  assert.equal(svg, qrToSvg(encodeQr(doc.timbreUrl, { ecc: 'M' }), { title: `Timbre ${doc.encf}` }));
  const other = await newTenantWithCertificate(t.url);
  assert.equal((await fetch(`${t.url}/TesteCF/documentos-ecf/${id}/qr.svg`, { headers: { 'x-api-key': other.apiKey } })).status, 404);
});

test('the CSV export carries the ERP referencia and filters by it', async () => {
  const body = sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined }, Emisor: { RNCEmisor: rnc } } });
  const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { headers: api, json: { ...body, referencia: 'ERP-PED-77' } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const csv = await (await fetch(`${t.url}/TesteCF/documentos-ecf/export?format=csv&referencia=ERP-PED-77`, { headers: api })).text();
  const rows = csv.split('\r\n').filter((l) => l !== '');
  assert.equal(rows.length, 2, 'header and the one row');
  assert.match(rows[1] ?? '', new RegExp(`^${res.body.data.encf},.*,ERP-PED-77$`));
});

test('a ZIP export holds no database connection while its reader waits, and left midway closes its temporary file; read to the end it is whole', async () => {
  // Enough signed documents (in eCF, apart from the other tests') for a central directory
  // (72 bytes an entry here) past what the writer keeps in memory.
  const count = Math.ceil((DIRECTORY_MEMORY / 72) * 1.5);
  await t.sql`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, fecha_emision, monto_total, ecf, signed_xml)
    select gen_random_uuid(), ${tenantId}, 'eCF', 31, 'E31' || lpad(i::text, 10, '0'), 'aceptado', ${rnc}, current_date, 100, '{}'::jsonb, '<ECF>' || i || '</ECF>'
    from generate_series(1, ${count}) i`;
  const spills = () => openFilesUnder(tmpdir()).filter((f) => /\/ecf-zip-[^/]+\/central-directory \(deleted\)$/.test(f));
  assert.deepEqual(spills(), []);

  const reports = new DocumentReports(t.sql, async () => ({ failing: 0, abandoned: 0 }));
  const chunks = reports.export(tenantId, 'eCF', {}, 'zip')[Symbol.asyncIterator]();
  let read = 0;
  while (spills().length === 0 && read < count) {
    assert.equal((await chunks.next()).done, false);
    read++;
  }
  assert.ok(read < count, `the directory went to a file after ${read} of ${count} entries`);

  // The export waits for its reader: the database serves others meanwhile (the embedded one
  // has a single session, which a cursor held open would keep), and runs no export query.
  let answered = false;
  void t.sql`select 1`.then(() => (answered = true));
  await waitFor(() => answered, 20_000, 'a query while the export waits');
  if (t.database.url !== 'memory://') {
    const [running] = await t.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle' and query like '%signed_xml is not null%'`;
    assert.equal(running?.n, 0);
  }

  await chunks.return?.();
  assert.deepEqual(spills(), [], 'the temporary file is closed once the reader leaves');

  const res = await fetch(`${t.url}/eCF/documentos-ecf/export?format=zip`, { headers: api });
  const file = join(dir, 'spilled-export.zip');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  const check = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const names = spawnSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).stdout.trimEnd().split('\n');
  const expected = Array.from({ length: count }, (_, i) => `${rnc}E31${String(i + 1).padStart(10, '0')}.xml`);
  assert.deepEqual(names.sort(), expected.sort(), 'every document once, across the pages');
  assert.deepEqual(spills(), []);
});
