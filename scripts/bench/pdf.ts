// PDF: CPU time of one printed e-CF (src/ecf/print: layout, QR encoding, PDF serialisation) in
// this process, after a warm-up, against baselines measured the same way in the same run: the
// QR code alone, the PDF writer alone on a page with as many text operators, and
// JSON.stringify of the same document (the floor of turning it into any bytes at all).
import { PdfDocument } from '../../src/lib/pdf/index.ts';
import { encodeQr } from '../../src/lib/qr/index.ts';
import { renderEcfPdf, type PrintFormat, type PrintInput } from '../../src/ecf/print/index.ts';
import { validateEcf } from '../../src/ecf/validation/validate-ecf.ts';
import { sentAsRfce, timbreUrl } from '../../src/ecf/xml/index.ts';
import { sampleEcf } from '../../test/fixtures/ecf.ts';
import { print, round, verdict, setting } from './lib/report.ts';

const ITERATIONS = setting('BENCH_PDF_ITERATIONS', 2_000);
const WARMUP = setting('BENCH_PDF_WARMUP', 300);
const TARGET_MS = 5;

const validated = validateEcf(sampleEcf(31));
if (!validated.ok) throw new Error('the benchmark fixture is not a valid e-CF');
const d = validated.document;
const url = timbreUrl({
  environment: 'eCF', rfce: sentAsRfce(d.tipo, d.MontoTotal), rncEmisor: d.RNCEmisor, rncComprador: d.RNCComprador ?? null,
  encf: d.eNCF ?? '', fechaEmision: d.FechaEmision, montoTotal: d.MontoTotal, fechaFirma: '15-03-2025 10:22:33', codigoSeguridad: 'Ab+3/x',
});
const input: PrintInput = { tipo: d.tipo, ecf: d.ecf, signature: { securityCode: 'Ab+3/x', fechaHoraFirma: '15-03-2025 10:22:33', timbreUrl: url } };

/** CPU milliseconds (user + system) per call of `fn`, after `WARMUP` calls. */
function cpuPerCall(fn: () => unknown): { cpuMs: number; wallMs: number } {
  for (let i = 0; i < WARMUP; i++) fn();
  const wall = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) fn();
  const used = process.cpuUsage(cpu);
  return { cpuMs: round((used.user + used.system) / 1000 / ITERATIONS, 3), wallMs: round((performance.now() - wall) / ITERATIONS, 3) };
}

const sample = renderEcfPdf(input, 'carta');
const textOps = 60;
const formats: PrintFormat[] = ['carta', 'a4', 'ticket80'];
const full = Object.fromEntries(formats.map((f) => [f, cpuPerCall(() => renderEcfPdf(input, f))])) as Record<PrintFormat, { cpuMs: number; wallMs: number }>;
const qrOnly = cpuPerCall(() => encodeQr(url, { ecc: 'M' }));
const writerOnly = cpuPerCall(() => {
  const doc = new PdfDocument();
  const page = doc.addPage();
  for (let i = 0; i < textOps; i++) page.text(40, 40 + i * 11, 'Instalación y configuración de red 3,500.00', { font: 'Helvetica', size: 8.5 });
  return doc.toBuffer();
});
const floor = cpuPerCall(() => JSON.stringify(input));

const data = { iterations: ITERATIONS, warmup: WARMUP, bytes: sample.length, full, qrOnly, writerOnly, jsonFloor: floor };
print({
  bench: 'pdf',
  title: 'PDF: the printed e-CF (type 31, 3 lines) rendered in-process, CPU per document',
  notes: [
    `${ITERATIONS.toLocaleString('en-US')} calls per row after ${WARMUP} warm-up calls; CPU is process.cpuUsage (user + system) divided by the calls`,
    `full: renderEcfPdf, i.e. reading the e-CF, layout, the QR code of the ${url.length}-character timbre URL (level M) and the Flate-compressed file (${sample.length.toLocaleString('en-US')} bytes for carta)`,
    `baselines: the QR encoder alone; the PDF writer alone on one page of ${textOps} text operators; JSON.stringify of the same input`,
  ],
  columns: ['measure', 'CPU ms/doc', 'wall ms/doc', 'target'],
  rows: [
    ...formats.map((f) => [`full, ${f}`, full[f].cpuMs, full[f].wallMs, `< ${TARGET_MS} ms: ${verdict(full[f].cpuMs < TARGET_MS)}`]),
    ['QR encoder alone', qrOnly.cpuMs, qrOnly.wallMs, null],
    [`PDF writer alone (${textOps} texts)`, writerOnly.cpuMs, writerOnly.wallMs, null],
    ['JSON.stringify (floor)', floor.cpuMs, floor.wallMs, null],
  ],
  data,
  headlines: [
    { figure: 'one-page PDF (carta), CPU', value: `${full.carta.cpuMs} ms (QR ${qrOnly.cpuMs} ms, writer ${writerOnly.cpuMs} ms)`, target: `< ${TARGET_MS} ms`, met: full.carta.cpuMs < TARGET_MS },
  ],
});
