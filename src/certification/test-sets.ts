import { randomUUID } from 'node:crypto';
import type { CommercialApprovals } from '../approvals/service.ts';
import type { Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { AppError, errorMessage, notFound, validationError, type FieldError } from '../errors.ts';
import { casesOfTable, type CaseProblem, type SetCase } from './cases.ts';
import { deleteSet, findSet, insertCase, insertSet, listCases, type CaseRow, updateCase } from './queries.ts';
import type { CaseTally } from './steps.ts';
import { readCsv, readXlsx, XlsxError } from './xlsx.ts';

// DGII's test set: imported from its workbook (.xlsx) or the same cases as CSV, every case
// validated before anything is stored or sent, then sent to the environment (CerteCF) in DGII's
// order, one phase after the other: the type 32 under RD$250,000 (summaries, RFCE) first, then
// the other e-CF, then the debit and credit notes once the documents they modify are accepted,
// then the commercial approvals. Each call of `run` refreshes what DGII answered and sends what
// may go now, so running it again resumes where the set stopped (a case already emitted is found
// by its eNCF and not emitted twice).

export const MAX_SET_BYTES = 5 * 1024 * 1024;
const MAX_CASES = 500;
/** Cases sent per call of run: a set is a few dozen; the rest go on the next call. */
const SEND_PER_RUN = 100;
const MAX_PROBLEMS = 200;

/** What the documents feature tells about an e-CF of the tenant. */
export interface EmittedDocument { id: string; estado: string; detalle: string | null }

export interface TestSetDeps {
  sql: Sql;
  rncOf: (tenantId: number) => Promise<string | undefined>;
  /** Emits an e-CF body as POST /{env}/documentos-ecf does (422 when it is not valid). */
  emit: (tenantId: number, environment: Environment, body: Record<string, unknown>) => Promise<EmittedDocument>;
  /** The tenant's e-CF with this eNCF, if any. */
  documentByEncf: (tenantId: number, environment: Environment, encf: string) => Promise<EmittedDocument | null>;
  approvals: CommercialApprovals;
  /** The printed representation (PDF) of a signed e-CF of the tenant. */
  printed: (tenantId: number, environment: Environment, documentId: string) => Promise<{ data: Buffer; filename: string }>;
  /** The signed XML of an e-CF of the tenant. */
  signedXml: (tenantId: number, environment: Environment, documentId: string) => Promise<string>;
}

export interface ReviewEntry { name: string; data: Buffer | string; modified: Date }

const FASES = { 1: 'Facturas de consumo menores de RD$250,000 (RFCE)', 2: 'e-CF', 3: 'Notas de débito y crédito', 4: 'Aprobaciones comerciales' } as const;

function caseView(c: CaseRow) {
  return {
    numero: c.numero,
    caso: c.caso,
    clase: c.clase,
    tipo: c.tipo,
    encf: c.encf,
    fase: c.fase,
    faseNombre: FASES[c.fase as keyof typeof FASES] ?? String(c.fase),
    estado: c.estado,
    detalle: c.detalle,
    documentId: c.documentId,
    approvalId: c.approvalId,
    updatedAt: c.updatedAt.toISOString(),
  };
}

function tallyOf(cases: readonly CaseRow[]): CaseTally {
  return {
    total: cases.length,
    aceptados: cases.filter((c) => c.estado === 'aceptado').length,
    rechazados: cases.filter((c) => c.estado === 'rechazado').length,
    pendientes: cases.filter((c) => c.estado === 'pendiente' || c.estado === 'enviado').length,
  };
}

/** What the document's state means for its case. */
function caseStateOf(estado: string): 'enviado' | 'aceptado' | 'rechazado' {
  if (estado === 'aceptado' || estado === 'aceptado_condicional') return 'aceptado';
  if (estado === 'rechazado' || estado === 'error') return 'rechazado';
  return 'enviado';
}

/** A test set goes to DGII's certification (or its rehearsal), never to production. */
function assertTestEnvironment(environment: Environment): void {
  if (environment === 'eCF') throw new AppError('CONFLICT', 'Test sets are sent to CerteCF (or TesteCF to rehearse), never to production (eCF)');
}

export class TestSets {
  private readonly deps: TestSetDeps;

  constructor(deps: TestSetDeps) {
    this.deps = deps;
  }

  /** Reads and validates every case; 422 listing each case's problems; stores nothing then. */
  async import(tenantId: number, environment: Environment, bytes: Buffer, origen: string) {
    const { sql } = this.deps;
    assertTestEnvironment(environment);
    const rnc = await this.deps.rncOf(tenantId);
    if (rnc === undefined) throw new AppError('UNAUTHORIZED');
    if (bytes.length === 0) throw validationError([{ path: '$', message: 'the body is empty: send DGII\'s workbook (.xlsx) or a CSV file' }]);
    let tables: { source: string; rows: string[][] }[];
    try {
      if (bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
        tables = readXlsx(bytes).map((s) => ({ source: `Hoja ${s.name}`, rows: s.rows }));
      } else {
        const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        tables = [{ source: 'CSV', rows: readCsv(text) }];
      }
    } catch (err) {
      const message = err instanceof XlsxError ? err.message : err instanceof TypeError ? 'the file is neither an .xlsx workbook nor UTF-8 CSV text' : errorMessage(err);
      throw validationError([{ path: '$', message }], 'The test set cannot be read');
    }
    const cases: SetCase[] = [];
    const problems: CaseProblem[] = [];
    const ignored: string[] = [];
    for (const t of tables) {
      const read = casesOfTable(t.rows, t.source, cases.length + problems.length + 1, rnc);
      if (read === null) {
        ignored.push(t.source);
        continue;
      }
      cases.push(...read.cases);
      problems.push(...read.problems);
      if (cases.length + problems.length > MAX_CASES) throw validationError([{ path: '$', message: `the set has more than ${MAX_CASES} cases` }], 'The test set cannot be read');
    }
    const seen = new Map<string, string>();
    for (const c of cases) {
      const key = `${c.clase}:${c.body.rncEmisor ?? ''}:${c.encf}`;
      const other = seen.get(key);
      if (other !== undefined) problems.push({ caso: c.caso, errors: [{ path: 'eNCF', message: `${c.encf} is also the eNCF of ${other}` }] });
      seen.set(key, c.caso);
    }
    if (problems.length > 0) {
      const details: FieldError[] = problems.flatMap((p) => p.errors.map((e) => ({ path: `${p.caso}: ${e.path}`, message: e.message }))).slice(0, MAX_PROBLEMS);
      throw validationError(details, `The test set has ${problems.length} case(s) that are not valid; nothing was stored or sent`);
    }
    if (cases.length === 0) throw validationError([{ path: '$', message: `no case found: a sheet or file needs a header row with TipoeCF (e-CF) or RNCEmisor, eNCF, Estado and RNCComprador (approvals)${ignored.length > 0 ? `; read without cases: ${ignored.join(', ')}` : ''}` }], 'The test set cannot be read');
    const id = randomUUID();
    await sql.begin(async (tx) => {
      // A new import replaces the set; what was already emitted is found again by its eNCF when it runs.
      const existing = await findSet(tx, tenantId, environment);
      if (existing !== undefined) await deleteSet(tx, existing.id);
      await insertSet(tx, { id, tenantId, environment, origen });
      for (const c of cases) await insertCase(tx, id, c);
    });
    return { ...(await this.view(tenantId, environment)), hojasIgnoradas: ignored };
  }

  /** The set, or null when none was imported in this environment. */
  async find(tenantId: number, environment: Environment) {
    return (await findSet(this.deps.sql, tenantId, environment)) === undefined ? null : this.view(tenantId, environment);
  }

  async view(tenantId: number, environment: Environment) {
    const set = await findSet(this.deps.sql, tenantId, environment);
    if (set === undefined) throw notFound('Test set');
    const cases = await listCases(this.deps.sql, set.id);
    const ecf = cases.filter((c) => c.clase === 'ecf');
    const aprobaciones = cases.filter((c) => c.clase === 'aprobacion');
    return {
      id: set.id,
      origen: set.origen,
      createdAt: set.createdAt.toISOString(),
      resumen: { ecf: tallyOf(ecf), aprobaciones: tallyOf(aprobaciones) },
      casos: cases.map(caseView),
    };
  }

  /**
   * What DGII's reviewers ask for in the printed-representation steps: the PDF and the signed XML
   * of each of the set's e-CF, named by eNCF, with a list of what is in the archive. 409 while no
   * case has a signed document.
   */
  async reviewEntries(tenantId: number, environment: Environment): Promise<ReviewEntry[]> {
    const set = await findSet(this.deps.sql, tenantId, environment);
    if (set === undefined) throw notFound('Test set');
    const cases = (await listCases(this.deps.sql, set.id)).filter((c) => c.clase === 'ecf' && c.documentId !== null);
    const modified = new Date();
    const entries: ReviewEntry[] = [];
    const lines: string[] = [];
    for (const c of cases) {
      const id = c.documentId as string;
      try {
        const pdf = await this.deps.printed(tenantId, environment, id);
        const xml = await this.deps.signedXml(tenantId, environment, id);
        entries.push({ name: `${c.encf}.pdf`, data: pdf.data, modified }, { name: `${c.encf}.xml`, data: xml, modified });
        lines.push(`${c.encf}\ttipo ${c.tipo ?? ''}\t${c.caso}\t${c.estado}`);
      } catch (err) {
        // Not signed yet (or never): left out, and said so in the list.
        if (!(err instanceof AppError)) throw err;
        lines.push(`${c.encf}\ttipo ${c.tipo ?? ''}\t${c.caso}\tsin firmar: ${err.message}`);
      }
    }
    if (entries.length === 0) throw new AppError('CONFLICT', 'No e-CF of the set is signed yet: send the set first (POST …/certificacion/set/enviar)');
    entries.push({ name: 'LEAME.txt', data: `Representaciones impresas y XML firmados del set de pruebas (${set.origen}), ambiente ${environment}.\r\n\r\n${lines.join('\r\n')}\r\n`, modified });
    return entries;
  }

  /** For the progress of steps 2 and 3; null without a set. */
  async tally(tenantId: number, environment: Environment): Promise<{ ecf: CaseTally; aprobaciones: CaseTally } | null> {
    const set = await findSet(this.deps.sql, tenantId, environment);
    if (set === undefined) return null;
    const cases = await listCases(this.deps.sql, set.id);
    return { ecf: tallyOf(cases.filter((c) => c.clase === 'ecf')), aprobaciones: tallyOf(cases.filter((c) => c.clase === 'aprobacion')) };
  }

  /** Takes in DGII's answers so far and sends what may go now; call again to go on. */
  async run(tenantId: number, environment: Environment) {
    const { sql } = this.deps;
    assertTestEnvironment(environment);
    const set = await findSet(sql, tenantId, environment);
    if (set === undefined) throw notFound('Test set');
    let cases = await listCases(sql, set.id);
    // A rejected e-CF is looked at again too: a document in error may have been sent again (…/reenviar).
    for (const c of cases.filter((x) => x.estado === 'enviado' || (x.estado === 'rechazado' && x.clase === 'ecf'))) await this.refresh(tenantId, environment, c);
    cases = await listCases(sql, set.id);
    const open = cases.find((c) => c.estado !== 'aceptado');
    if (open !== undefined) {
      // A rejected case stops the set where it is: DGII's order is kept, the rest waits for a fix.
      const failed = cases.some((c) => c.fase <= open.fase && c.estado === 'rechazado');
      if (!failed) {
        let sent = 0;
        for (const c of cases) {
          if (c.fase !== open.fase || c.estado !== 'pendiente' || sent >= SEND_PER_RUN) continue;
          await this.send(tenantId, environment, c);
          sent++;
        }
      }
    }
    return this.view(tenantId, environment);
  }

  private async refresh(tenantId: number, environment: Environment, c: CaseRow): Promise<void> {
    if (c.clase === 'ecf') {
      const doc = await this.deps.documentByEncf(tenantId, environment, c.encf);
      if (doc === null) return;
      const estado = caseStateOf(doc.estado);
      if (estado !== c.estado) await updateCase(this.deps.sql, c.setId, c.numero, { estado, detalle: doc.detalle, documentId: doc.id });
      return;
    }
    if (c.approvalId === null) return;
    const a = await this.deps.approvals.get(tenantId, environment, c.approvalId);
    if (a.dgii.estado === 'enviado') await updateCase(this.deps.sql, c.setId, c.numero, { estado: 'aceptado', detalle: a.dgii.detalle });
    else if (a.dgii.estado !== 'pendiente') await updateCase(this.deps.sql, c.setId, c.numero, { estado: 'rechazado', detalle: a.dgii.detalle });
  }

  private async send(tenantId: number, environment: Environment, c: CaseRow): Promise<void> {
    const { sql } = this.deps;
    try {
      if (c.clase === 'ecf') {
        // Resuming: a case whose document was emitted before the set's record said so.
        const doc = (await this.deps.documentByEncf(tenantId, environment, c.encf)) ?? (await this.deps.emit(tenantId, environment, c.body));
        await updateCase(sql, c.setId, c.numero, { estado: caseStateOf(doc.estado), detalle: doc.detalle, documentId: doc.id });
      } else {
        const rncEmisor = String(c.body.rncEmisor);
        const a = (await this.deps.approvals.find(tenantId, environment, rncEmisor, c.encf)) ?? (await this.deps.approvals.create(tenantId, environment, c.body));
        await updateCase(sql, c.setId, c.numero, { estado: 'enviado', detalle: null, approvalId: a.id });
      }
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      // Two runs at once (two tabs, two instances): the other one emitted or sent it first.
      if (c.clase === 'ecf' && err.code === 'ENCF_ALREADY_USED') {
        const doc = await this.deps.documentByEncf(tenantId, environment, c.encf);
        if (doc !== null) return updateCase(sql, c.setId, c.numero, { estado: caseStateOf(doc.estado), detalle: doc.detalle, documentId: doc.id });
      }
      if (c.clase === 'aprobacion' && err.code === 'CONFLICT') {
        const a = await this.deps.approvals.find(tenantId, environment, String(c.body.rncEmisor), c.encf);
        if (a !== null) return updateCase(sql, c.setId, c.numero, { estado: 'enviado', detalle: null, approvalId: a.id });
      }
      const details = err.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
      await updateCase(sql, c.setId, c.numero, { estado: 'rechazado', detalle: `${err.message}${details === undefined || details === '' ? '' : ` (${details})`}`.slice(0, 1000) });
    }
  }
}
