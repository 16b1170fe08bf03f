// Export: GET /{env}/documentos-ecf/export?format=csv and ?format=zip of 1,000, 10,000,
// 100,000 and 300,000 documents (BENCH_EXPORT_SIZES), downloaded from the service in its own
// process. The documents are written straight into a throwaway database with SQL
// (generate_series), each with a real signed e-CF of about 6 KB made once here and varied per
// row (eNCF, DigestValue, SignatureValue). Every download gets a freshly started service,
// twice: untouched, for its peak RSS (VmHWM) over its RSS at rest after startup; and with the
// GC probe, for the V8 heap the export keeps alive (used after full collections during the
// download). Constant memory means the heap kept alive stays flat whatever the count.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { validateEcf } from '../../src/ecf/validation/index.ts';
import { buildEcfXml, formatFechaHoraFirma } from '../../src/ecf/xml/index.ts';
import { signXml } from '../../src/xml/index.ts';
import { sampleEcfWithItems } from '../../test/fixtures/ecf.ts';
import { createDatabase, serverSettings } from './lib/database.ts';
import { collectGarbage, cpuMsOf, GC_PROBE, gcReadings, peakRssOf, resetPeakRss, run, sampleRss, settledRss, sleep, startService, type ServiceProcess } from './lib/processes.ts';
import { mib, print, round, type Cell } from './lib/report.ts';
import { registerTenant, type Tenant } from './lib/tenants.ts';

const SIZES = (process.env.BENCH_EXPORT_SIZES ?? '1000,10000,100000,300000').split(',').map((s) => {
  const n = Number(s.trim());
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_EXPORT_SIZES must list positive integers (got "${s}")`);
  return n;
});
const FORMATS = ['csv', 'zip'] as const;
type Format = (typeof FORMATS)[number];
/** "Flat": the heap kept alive at the largest size at most this much above the smallest's. */
const FLAT_MIB = 5;
/** Five of the sample's lines give a signed e-CF of about 6 KB. */
const LINES = 5;
const PLACEHOLDER_ENCF = 'E310000000001';
const SERVICE_ENV = { LOG_LEVEL: 'warn', WORKERS_ENABLED: 'false' };

const work = await mkdtemp(join(tmpdir(), 'ecf-bench-export-'));

/** A self-signed signing certificate and its key (openssl, as the tests make theirs). */
async function signingCredential(rnc: string): Promise<{ key: ReturnType<typeof createPrivateKey>; certificate: X509Certificate }> {
  const key = join(work, `${rnc}.key`);
  const cert = join(work, `${rnc}.pem`);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', `/CN=Empresa ${rnc} SRL/serialNumber=${rnc}`, '-days', '30']);
  return { key: createPrivateKey(await readFile(key)), certificate: new X509Certificate(await readFile(cert)) };
}

interface Template {
  xml: string;
  ecf: string;
  montoTotal: string;
  signatureValue: string;
  digestValue: string;
}

/** The tenant's signed e-CF with the placeholder eNCF, and what the rows vary in it. */
async function template(rnc: string): Promise<Template> {
  const checked = validateEcf(sampleEcfWithItems(31, LINES, { Encabezado: { IdDoc: { eNCF: PLACEHOLDER_ENCF }, Emisor: { RNCEmisor: rnc } } }));
  if (!checked.ok) throw new Error('the sample e-CF is not valid');
  const { key, certificate } = await signingCredential(rnc);
  const xml = signXml(buildEcfXml(31, checked.document.ecf, formatFechaHoraFirma(new Date())), key, certificate);
  const pick = (tag: string): string => {
    const m = new RegExp(`<${tag}>([^<]+)</${tag}>`).exec(xml);
    if (m?.[1] === undefined) throw new Error(`the signed e-CF has no ${tag}`);
    return m[1];
  };
  return { xml, ecf: JSON.stringify(checked.document.ecf), montoTotal: pick('MontoTotal'), signatureValue: pick('SignatureValue'), digestValue: pick('DigestValue') };
}

/** `count` accepted documents of the tenant in TesteCF (the environment its API key acts in). */
async function seed(sql: postgres.Sql, tenant: Tenant, count: number): Promise<{ ms: number; xmlBytes: number }> {
  const t = await template(tenant.rnc);
  const started = performance.now();
  // A SignatureValue of 256 bytes and a DigestValue of 32 per row, from hashes of the row number.
  await sql.unsafe(`
    insert into documents (id, tenant_id, environment, tipo, encf, estado, rnc_emisor, rnc_comprador, fecha_emision, monto_total, ecf, signed_xml, security_code, fecha_hora_firma)
    select gen_random_uuid(), $1, 'TesteCF', 31, s.encf, 'aceptado', $2, '101672919', date '2025-01-01' + (s.i % 365), $3::numeric, $4::jsonb,
      replace(replace(replace($5, $6, s.encf), $7, s.signature), $8, s.digest), substr(s.signature, 1, 6), '01-06-2025 10:00:00'
    from (
      select i, 'E31' || lpad(i::text, 10, '0') as encf,
        translate(encode(sha512(('a' || i)::bytea) || sha512(('b' || i)::bytea) || sha512(('c' || i)::bytea) || sha512(('d' || i)::bytea), 'base64'), E'\\n', '') as signature,
        encode(sha256(('e' || i)::bytea), 'base64') as digest
      from generate_series(1, $9::int) i
    ) s`, [tenant.tenantId, tenant.rnc, t.montoTotal, t.ecf, t.xml, PLACEHOLDER_ENCF, t.signatureValue, t.digestValue, count]);
  return { ms: performance.now() - started, xmlBytes: Buffer.byteLength(t.xml) };
}

/** The entry count an archive's end records state (ZIP64's when the plain one says 0xFFFF). */
function zipEntries(tail: Buffer): number {
  const end = tail.subarray(tail.length - 22);
  if (end.readUInt32LE(0) !== 0x06054b50) throw new Error('the ZIP does not end with its end of central directory record');
  const plain = end.readUInt16LE(10);
  if (plain !== 0xffff) return plain;
  const end64 = tail.subarray(tail.length - 22 - 20 - 56);
  if (end64.readUInt32LE(0) !== 0x06064b50) throw new Error('the ZIP64 end of central directory record is missing');
  return Number(end64.readBigUInt64LE(32));
}

interface Download {
  bytes: number;
  ms: number;
}

/** Downloads an export, checks it holds every document, and drops it. */
async function download(service: ServiceProcess, tenant: Tenant, format: Format, documents: number): Promise<Download> {
  const started = performance.now();
  const res = await fetch(`${service.url}/TesteCF/documentos-ecf/export?format=${format}`, { headers: { 'x-api-key': tenant.apiKey } });
  if (res.status !== 200 || res.body === null) throw new Error(`export ${format} answered ${res.status}: ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of res.body) {
    bytes += chunk.length;
    if (format === 'csv') {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    } else {
      tail = Buffer.concat([tail, chunk]).subarray(-128);
    }
  }
  const ms = performance.now() - started;
  const rows = format === 'csv' ? lines - 1 : zipEntries(tail);
  if (rows !== documents) throw new Error(`export ${format} held ${rows} documents, not ${documents}`);
  return { bytes, ms };
}

interface Measure extends Download {
  format: Format;
  documents: number;
  cpuMs: number;
  idleRss: number;
  peakRss: number;
  peakFrom: 'VmHWM' | 'samples';
  /** V8 heap left after a full collection: at rest before the download, and the highest during it. */
  idleHeap: number;
  liveHeap: number;
  heapReadings: number;
}

/**
 * Two downloads, each from a freshly started service: one untouched, for the peak RSS against
 * the RSS at rest; one with the GC probe collecting every 250 ms, for the heap the export
 * keeps alive (the probe's collections change the RSS, so its RSS is not reported).
 */
async function measure(databaseUrl: string, tenant: Tenant, format: Format, documents: number): Promise<Measure> {
  const plain = await startService({ DATABASE_URL: databaseUrl, ...SERVICE_ENV });
  let rss: Omit<Measure, 'idleHeap' | 'liveHeap' | 'heapReadings'>;
  try {
    await sleep(1000);
    const idleRss = await settledRss(plain.pid);
    const reset = await resetPeakRss(plain.pid);
    const sampler = sampleRss(plain.pid, 20);
    const cpuBefore = await cpuMsOf(plain.pid);
    const got = await download(plain, tenant, format, documents);
    const cpuMs = (await cpuMsOf(plain.pid)) - cpuBefore;
    const sampled = await sampler.stop();
    rss = { format, documents, ...got, cpuMs, idleRss, peakRss: reset ? await peakRssOf(plain.pid) : sampled.peak, peakFrom: reset ? 'VmHWM' : 'samples' };
  } finally {
    await plain.stop();
  }

  const probed = await startService({ DATABASE_URL: databaseUrl, ...SERVICE_ENV }, { nodeArgs: ['--import', GC_PROBE] });
  try {
    await sleep(1000);
    const idle = await collectGarbage(probed);
    const before = gcReadings(probed).length;
    const timer = setInterval(() => probed.child.kill('SIGUSR2'), 250);
    try {
      await download(probed, tenant, format, documents);
    } finally {
      clearInterval(timer);
    }
    const during = gcReadings(probed).slice(before);
    return { ...rss, idleHeap: idle.heapUsed, liveHeap: Math.max(idle.heapUsed, ...during.map((r) => r.heapUsed)), heapReadings: during.length };
  } finally {
    await probed.stop();
  }
}

const db = await createDatabase('export');
try {
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const tenants: Tenant[] = [];
  const seeded: { documents: number; ms: number; xmlBytes: number }[] = [];
  try {
    const setup = await startService({ DATABASE_URL: db.url, ...SERVICE_ENV });
    try {
      for (let i = 0; i < SIZES.length; i++) tenants.push(await registerTenant(setup.url));
    } finally {
      await setup.stop();
    }
    for (const [i, documents] of SIZES.entries()) {
      process.stderr.write(`seeding ${documents.toLocaleString('en-US')} documents…\n`);
      seeded.push({ documents, ...(await seed(sql, tenants[i] as Tenant, documents)) });
    }
    await sql`vacuum analyze documents`;
  } finally {
    await sql.end();
  }

  const measures: Measure[] = [];
  for (const format of FORMATS) {
    for (const [i, documents] of SIZES.entries()) {
      process.stderr.write(`export ${format} of ${documents.toLocaleString('en-US')} documents…\n`);
      measures.push(await measure(db.url, tenants[i] as Tenant, format, documents));
    }
  }

  const rssGrowth = (m: Measure) => mib(m.peakRss - m.idleRss);
  const heapGrowth = (m: Measure) => mib(m.liveHeap - m.idleHeap);
  const rows: Cell[][] = measures.map((m) => [
    m.format, m.documents, round(m.bytes / 1e6, 2), round(m.ms / 1000, 2), Math.round(m.documents / (m.ms / 1000)), round((m.cpuMs / m.documents) * 1000, 0),
    mib(m.idleRss), mib(m.peakRss), rssGrowth(m), mib(m.idleHeap), mib(m.liveHeap), heapGrowth(m),
  ]);
  const pg = await serverSettings();
  const sizes = (ms: Measure[]) => `${(ms[0] as Measure).documents.toLocaleString('en-US')} → ${(ms.at(-1) as Measure).documents.toLocaleString('en-US')} documents`;
  const headlines = FORMATS.flatMap((format) => {
    const mine = measures.filter((m) => m.format === format);
    const first = mine[0] as Measure;
    const last = mine.at(-1) as Measure;
    return [
      {
        figure: `${format}: heap kept alive (after full GC) over idle, ${sizes(mine)}`,
        value: mine.map((m) => `${heapGrowth(m)}`).join(' → ') + ' MiB',
        target: `≤ ${FLAT_MIB} MiB more at ${last.documents.toLocaleString('en-US')} than at ${first.documents.toLocaleString('en-US')}`,
        met: heapGrowth(last) - heapGrowth(first) <= FLAT_MIB,
      },
      { figure: `${format}: peak RSS over idle, ${sizes(mine)}`, value: mine.map((m) => `${rssGrowth(m)}`).join(' → ') + ' MiB', target: null, met: null },
    ];
  });
  print({
    bench: 'export',
    title: `Export: CSV and ZIP of ${SIZES.map((n) => n.toLocaleString('en-US')).join(', ')} documents, the service's memory`,
    notes: [
      `documents: inserted with SQL (generate_series) in TesteCF, one tenant per size; each a real signed e-CF 31 of ${seeded[0]?.xmlBytes ?? 0} bytes (${LINES} lines, signed with a self-signed RSA-2048 certificate) with its eNCF, DigestValue and SignatureValue varied per row; ${seeded.map((d) => `${d.documents.toLocaleString('en-US')} in ${round(d.ms / 1000, 1)} s`).join(', ')}`,
      `service: own process, NODE_ENV=production, ${Object.entries(SERVICE_ENV).map(([k, v]) => `${k}=${v}`).join(', ')}; started afresh for every download, twice per row (below)`,
      'RSS: the service\'s RSS at rest 1 s after startup (median of 5 readings 200 ms apart), then its peak during the download: ' +
        (measures.every((m) => m.peakFrom === 'VmHWM') ? 'VmHWM of /proc/<pid>/status, restarted at the rest figure (clear_refs)' : 'the highest of VmRSS readings every 20 ms (clear_refs was not allowed)') +
        '; s, docs/s and CPU (user + system time of the service) from that download',
      'heap: a second service with the GC probe preloaded (a full collection on SIGUSR2): V8 heap used after a collection at rest, and the highest after the collections made every 250 ms during the download, i.e. what the export keeps alive',
      'download: fetch in the benchmark process, the body counted and dropped; a CSV must hold one row per document, a ZIP\'s end record as many entries',
      `PostgreSQL ${pg.server_version ?? '?'} (shared_buffers ${pg.shared_buffers ?? '?'}) on the same machine`,
    ],
    columns: ['format', 'documents', 'MB', 's', 'docs/s', 'CPU µs/doc', 'RSS idle MiB', 'RSS peak MiB', 'RSS growth', 'heap idle MiB', 'heap live MiB', 'heap growth'],
    rows,
    data: {
      sizes: SIZES,
      seeded,
      measures: measures.map((m) => ({ ...m, rssGrowthMiB: rssGrowth(m), heapGrowthMiB: heapGrowth(m) })),
    },
    headlines,
  });
} finally {
  await db.drop();
  await rm(work, { recursive: true, force: true });
}
