import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addDays, dominicanToday, toDgiiDate } from '../src/ecf/encf.ts';
import { sampleEcf } from './fixtures/ecf.ts';
import { makeTestCertificate, uploadCertificate } from './helpers/certificates.ts';
import { call, newTenant, type ApiResponse, type Loose } from './helpers/http.ts';
import { FAST_PIPELINE, waitForEstado } from './helpers/documents.ts';
import { startTestService, type TestService } from './helpers/service.ts';
import { waitFor } from './helpers/wait.ts';

// Issue 28, item 3: POST …/{id}/reenviar and POST /{env}/anulaciones of the same document in
// `error`, fired together, both succeeded, leaving an annulment and a resubmitted document of one
// eNCF. Now exactly one of them wins and the other is a 409. The documents end in error because
// the tenant has no certificate yet; it uploads one before the race, so a resubmitted document
// goes on to DGII (and is not in error again by the time the annulment looks).

let t: TestService;
type Tenant = Awaited<ReturnType<typeof newTenant>>;
let a: Tenant;
const E31 = (n: number) => `E31${String(n).padStart(10, '0')}`;

before(async () => {
  t = await startTestService({ env: FAST_PIPELINE });
});
after(async () => {
  await t.close();
});

const headers = () => ({ 'x-api-key': a.apiKey });

/** A new tenant (`a`) with `n` documents in error, and a certificate from now on. */
async function failedDocuments(n: number): Promise<{ id: string; encf: string }[]> {
  a = await newTenant(t.url);
  const range = await call(t.url, 'POST', '/TesteCF/secuencias', { json: { tipo: 31, desde: E31(1), hasta: E31(100), fechaVencimiento: toDgiiDate(addDays(dominicanToday(), 400)) }, headers: headers() });
  assert.equal(range.status, 201, range.text);
  const docs: { id: string; encf: string }[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(t.url, 'POST', '/TesteCF/documentos-ecf', { json: sampleEcf(31, { Encabezado: { IdDoc: { eNCF: undefined, FechaVencimientoSecuencia: undefined }, Emisor: { RNCEmisor: a.rnc } } }), headers: headers() });
    assert.equal(res.status, 202, res.text);
    docs.push({ id: res.body.data.internalTrackId as string, encf: res.body.data.encf as string });
  }
  for (const d of docs) await waitForEstado(t.url, 'TesteCF', d.id, headers(), ['error']);
  assert.equal((await uploadCertificate(t.url, a.accessToken, makeTestCertificate(a.rnc))).status, 201);
  return docs;
}

function resubmit(d: { id: string }): Promise<ApiResponse<Loose>> {
  return call(t.url, 'POST', `/TesteCF/documentos-ecf/${d.id}/reenviar`, { headers: headers() });
}

function annul(d: { encf: string }): Promise<ApiResponse<Loose>> {
  return call(t.url, 'POST', '/TesteCF/anulaciones', { json: { tipo: 31, desde: d.encf, hasta: d.encf }, headers: headers() });
}

function exactlyOneWins(d: { encf: string }, r: ApiResponse<Loose>, an: ApiResponse<Loose>): void {
  const won = [r.status, an.status].filter((s) => s === 202).length;
  assert.equal(won, 1, `${d.encf}: reenviar ${r.status} ${r.text.slice(0, 200)} / anulación ${an.status} ${an.text.slice(0, 200)}`);
  const lost = r.status === 202 ? an : r;
  assert.equal(lost.status, 409, lost.text);
}

test('resubmission and annulment of one document in error, fired together, never both succeed', async () => {
  const docs = await failedDocuments(8);
  for (const d of docs) {
    const [r, an] = await Promise.all([resubmit(d), annul(d)]);
    exactlyOneWins(d, r, an);
  }
});

// Deterministic on a server: the test holds the document's row, so a resubmission stops at its
// UPDATE; the annulment then either finishes first (the old bug: it never looked at the row) or
// waits behind the resubmission for the type's lock. Not on PGlite: its one connection would be
// the one the test holds.
test('while a resubmission waits on its document, an annulment of the same eNCF waits for it and is refused', async () => {
  if (t.database.url === 'memory://') {
    const [d] = await failedDocuments(1);
    assert.ok(d !== undefined);
    exactlyOneWins(d, ...(await Promise.all([resubmit(d), annul(d)])));
    return;
  }
  const [d] = await failedDocuments(1);
  assert.ok(d !== undefined);
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = t.sql.begin(async (tx) => {
    await tx`select id from documents where id = ${d.id} for update`;
    await released;
  });
  const waiting = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]?.n ?? 0;
  const r = resubmit(d);
  await waitFor(async () => ((await waiting()) >= 1 ? true : undefined), 10_000, 'the resubmission waiting on the document');
  let annulled: ApiResponse<Loose> | undefined;
  const an = annul(d).then((res) => (annulled = res));
  await waitFor(async () => (annulled !== undefined || (await waiting()) >= 2 ? true : undefined), 10_000, 'the annulment answered or waiting');
  release();
  await holding;
  exactlyOneWins(d, await r, await an);
  assert.equal((await r).status, 202, 'the resubmission came first');
});
