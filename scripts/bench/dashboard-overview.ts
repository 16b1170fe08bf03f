// The dashboard's overview on PostgreSQL: estadisticas' count over a million documents, and
// its plan. (The export's memory is measured by scripts/bench/export.ts, against the service.)
// Usage: BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench node scripts/bench/dashboard-overview.ts
// (the database is dropped and made again: never point it at one you keep).
import postgres from 'postgres';
import { migrate } from '../../src/db/migrate.ts';
import { DocumentReports } from '../../src/documents/reports.ts';

const url = process.env.BENCH_DATABASE_URL;
if (url === undefined) throw new Error('set BENCH_DATABASE_URL');
const TOTAL = Number(process.env.BENCH_DOCUMENTS ?? 1_000_000);
const EXPORTED = 100_000;
// BENCH_REUSE=1 measures again on the documents a previous run inserted.
const reuse = process.env.BENCH_REUSE === '1';
const admin = postgres(new URL('/postgres', url).toString(), { onnotice: () => {} });
const name = new URL(url).pathname.slice(1);
if (!reuse) {
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name}`);
}
await admin.end();
const sql = postgres(url, { transform: postgres.camel, onnotice: () => {}, max: 4 });
const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet } as never;
await migrate(sql, quiet);
if (!reuse) await fill();

let t0 = performance.now();
async function fill(): Promise<void> {
t0 = performance.now();
await sql`insert into tenants (name, rnc) values ('Bench', '131000002'), ('Other', '131000012')`;
const xml = `<?xml version="1.0" encoding="UTF-8"?><ECF>${'<Item><NombreItem>Artículo de prueba</NombreItem><MontoItem>100.00</MontoItem></Item>'.repeat(40)}<Signature>${'A'.repeat(344)}</Signature></ECF>`;
// Tenant 1 holds TOTAL documents over a year, EXPORTED of them in eCF with a signed XML;
// tenant 2 as many again, so that the tenant filter matters.
for (const tenant of [1, 2]) {
  await sql.unsafe(`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, fecha_emision, monto_total, ecf, signed_xml, security_code)
    select gen_random_uuid(), ${tenant}, case when i <= ${EXPORTED} then 'eCF' else 'TesteCF' end, 31, 'E31' || lpad(i::text, 10, '0'),
      (array['aceptado','aceptado','aceptado','rechazado','aceptado_condicional','error'])[1 + i % 6], '131000002', '101672919',
      date '2025-01-01' + (i % 365), 1180.00,
      '{"Encabezado":{"Comprador":{"RazonSocialComprador":"Ferretería Ochoa"},"Totales":{"TotalITBIS":"180.00","MontoTotal":"1180.00"}}}'::jsonb,
      case when i <= ${EXPORTED} then $1 end, 'AbC123'
    from generate_series(1, ${TOTAL}) i`, [xml]);
}
await sql`vacuum analyze documents`;
console.log(`inserted ${2 * TOTAL} documents in ${Math.round(performance.now() - t0)} ms`);
}

const reports = new DocumentReports(sql as never, async () => ({ failing: 0, abandoned: 0 }));
const plan = await sql.unsafe(`explain (analyze, buffers, costs off)
  select to_char(fecha_emision, 'YYYY-MM-DD') as day, estado, count(*)::int as count from documents
  where tenant_id = 1 and environment = 'TesteCF' and fecha_emision between '2025-05-01' and '2025-05-31'
  group by fecha_emision, estado order by fecha_emision`);
console.log(plan.map((r) => Object.values(r)[0]).join('\n'));
t0 = performance.now();
const stats = await reports.statistics(1, 'TesteCF', '2025-01-01', '2025-12-31');
console.log(`estadisticas over a year (${stats.range.total} documents): ${Math.round(performance.now() - t0)} ms`);
await sql.end();
