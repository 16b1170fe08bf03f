import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Queryable, Sql } from '../db/connect.ts';
import { addDays, dominicanToday, formatEncf, parseEncf, toDgiiDate } from '../ecf/encf.ts';
import { ECF_TYPES } from '../ecf/ecf-types.ts';
import type { Environment } from '../environments.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { parseCalendarDate } from '../lib/dates.ts';
import { toPage } from '../lib/page.ts';
import {
  claimExpiring, findAnnulment, holdingAnnulments, findAnnulmentXml, insertAnnulment, insertRange, listAnnulments, listRanges, lockRanges, lockTypeAlert, markLow,
  overlappingRange, remainingActive, storeAnnulmentXml, updateAnnulmentEstado, updateRangePosition,
  type AnnulmentEstado, type AnnulmentRow, type RangeRow, type Span,
} from './queries.ts';
import { annulmentView, isExpired, rangeView, type AnnulmentView, type RangeView } from './views.ts';
import { readSpan } from './span-input.ts';
import { walkRange, type UsedEncfs } from './walk.ts';

// DGII-authorised eNCF ranges and the numbers they give. Everything that changes a range's
// numbers left (numbering, an explicit eNCF, an annulment, a registration) runs in the caller's
// transaction under the range rows' locks, and ends by re-checking the type's low watermark,
// so sequence.low fires once per crossing: encf_low_alerts remembers which side it is on.

/** What the documents feature tells about the eNCFs its documents use (handed down by app.ts). */
export interface DocumentUsage {
  used: UsedEncfs;
  /** How many documents of the tenant use an eNCF from `from` to `to` (same type). */
  count(tx: Queryable, tenantId: number, environment: Environment, from: string, to: string): Promise<number>;
}

export interface SequenceKey {
  tenantId: number;
  environment: Environment;
  tipo: number;
}

/** A number given by a range, with the range's expiry (yyyy-MM-dd) for FechaVencimientoSecuencia. */
export interface RangeNumber {
  encf: string;
  fechaVencimiento: string | null;
}

export type { AnnulmentRow } from './queries.ts';


export class SequenceService {
  private readonly sql: Sql;
  private readonly outbox: EventOutbox;
  private readonly config: Config['sequences'];
  private readonly usage: DocumentUsage;

  constructor(sql: Sql, outbox: EventOutbox, config: Config['sequences'], usage: DocumentUsage) {
    this.sql = sql;
    this.outbox = outbox;
    this.config = config;
    this.usage = usage;
  }

  /** Registers an authorised range; 422 for a malformed one, 409 when it overlaps another. */
  async register(tenantId: number, environment: Environment, body: unknown, inTransaction: (tx: Queryable, view: RangeView) => Promise<void>): Promise<RangeView> {
    let fecha: string | undefined;
    const { errors, span: read } = readSpan(body, (input) => { fecha = input.optionalString('fechaVencimiento', { max: 10 }); });
    const tipo = read?.tipo ?? null;
    let fechaVencimiento: string | null = null;
    if (tipo !== null && ECF_TYPES[tipo].sequenceExpires) {
      if (fecha === undefined) errors.push({ path: 'fechaVencimiento', message: `is required for type ${tipo}` });
      else {
        fechaVencimiento = parseCalendarDate(fecha);
        if (fechaVencimiento === null) errors.push({ path: 'fechaVencimiento', message: 'must be a date, dd-MM-yyyy' });
        // DGII refuses every e-CF of an expired range, in every environment: registering one only strands it.
        else if (fechaVencimiento < dominicanToday()) errors.push({ path: 'fechaVencimiento', message: `must not have passed: today in Santo Domingo is ${toDgiiDate(dominicanToday())}` });
      }
    } else if (tipo !== null && fecha !== undefined) {
      errors.push({ path: 'fechaVencimiento', message: `type ${tipo} sequences carry no expiry date` });
    }
    if (errors.length > 0 || read === null || tipo === null) throw validationError(errors, 'The range is not valid');
    const { desde, hasta } = read;
    const span = { desde: read.from, hasta: read.to };
    const view = await this.sql.begin(async (tx) => {
      await lockTypeAlert(tx, tenantId, environment, tipo);
      const other = await overlappingRange(tx, tenantId, environment, tipo, span);
      if (other !== undefined) {
        throw new AppError('CONFLICT', `The range overlaps the registered range ${formatEncf(tipo, other.desde)}–${formatEncf(tipo, other.hasta)} (${other.id})`);
      }
      const usedAlready = await this.usage.count(tx, tenantId, environment, desde, hasta);
      const row = await insertRange(tx, { id: randomUUID(), tenantId, environment, tipo, desde: span.desde, hasta: span.hasta, fechaVencimiento, remaining: span.hasta - span.desde + 1 - usedAlready });
      await this.refreshLow(tx, { tenantId, environment, tipo });
      await this.announceExpiring(tx);
      const made = rangeView({ ...row, lastAnnulled: false }, dominicanToday(), await this.peek(tx, row));
      await inTransaction(tx, made);
      return made;
    });
    return view;
  }

  async list(tenantId: number, environment: Environment): Promise<RangeView[]> {
    const today = dominicanToday();
    const rows = await listRanges(this.sql, tenantId, environment);
    return Promise.all(rows.map(async (r) => rangeView(r, today, await this.peek(this.sql, r))));
  }

  async get(tenantId: number, environment: Environment, id: string): Promise<RangeView> {
    const [row] = await listRanges(this.sql, tenantId, environment, id);
    if (row === undefined) throw notFound('Range');
    return rangeView(row, dominicanToday(), await this.peek(this.sql, row));
  }

  /** The number the range would give next, without giving it. */
  private async peek(sql: Queryable, r: RangeRow): Promise<string | null> {
    return (await walkRange(sql, r, 1, this.usage.used)).encfs[0] ?? null;
  }

  /**
   * `count` numbers from the type's active ranges, the one expiring first first, in the caller's
   * transaction. null when the type has no range at all in a test environment (the caller
   * numbers implicitly); SEQUENCE_EXHAUSTED when the ranges cannot give them all. With
   * `checkUsed` false, numbers a document already uses are not looked for (see walkRange).
   */
  async take(tx: Queryable, key: SequenceKey, count: number, checkUsed = true): Promise<RangeNumber[] | null> {
    const ranges = await lockRanges(tx, key.tenantId, key.environment, key.tipo);
    if (ranges.length === 0) {
      if (key.environment !== 'eCF') return null;
      throw new AppError('SEQUENCE_EXHAUSTED', `No eNCF range of type ${key.tipo} is registered in eCF: register the range DGII authorised with POST /eCF/secuencias`);
    }
    const today = dominicanToday();
    const active = ranges
      .filter((r) => r.remaining > 0 && !isExpired(r.fechaVencimiento, today))
      .sort((a, b) => (a.fechaVencimiento ?? '9999').localeCompare(b.fechaVencimiento ?? '9999') || a.desde - b.desde);
    const out: RangeNumber[] = [];
    for (const r of active) {
      if (out.length >= count) break;
      const walked = await walkRange(tx, r, count - out.length, checkUsed ? this.usage.used : null);
      await updateRangePosition(tx, r.id, walked.nextValue, walked.remaining);
      out.push(...walked.encfs.map((encf) => ({ encf, fechaVencimiento: r.fechaVencimiento })));
    }
    if (out.length < count) {
      throw new AppError('SEQUENCE_EXHAUSTED', `No active eNCF range of type ${key.tipo} has a number left in ${key.environment}: register a new range with POST /${key.environment}/secuencias`);
    }
    await this.refreshLow(tx, key);
    return out;
  }

  /**
   * Spends eNCFs the client chose, all of one type, in the caller's transaction (a batch of emits,
   * or one) in a few statements whatever their number: each must lie in an unexpired registered
   * range and not be annulled; the first that may not be spent throws, for all of them. Each one's
   * range expiry, or null when the type has no range in a test environment (anything goes, as
   * before ranges existed). An eNCF given twice is counted twice; the documents' insert refuses
   * the second.
   */
  async spendExplicitMany(tx: Queryable, key: SequenceKey, encfs: readonly string[]): Promise<({ fechaVencimiento: string | null } | null)[]> {
    const ranges = await lockRanges(tx, key.tenantId, key.environment, key.tipo);
    if (ranges.length === 0 && key.environment !== 'eCF') return encfs.map(() => null);
    const today = dominicanToday();
    const field = 'ECF.Encabezado.IdDoc.eNCF';
    const spent = encfs.map((encf) => {
      const n = parseEncf(encf)?.n ?? -1;
      const range = ranges.find((r) => r.desde <= n && n <= r.hasta);
      if (range === undefined) throw validationError([{ path: field, message: `${encf} is not in a registered eNCF range of type ${key.tipo} (POST /${key.environment}/secuencias)` }], 'The e-CF is not valid');
      if (isExpired(range.fechaVencimiento, today)) {
        throw validationError([{ path: field, message: `the range of ${encf} expired on ${toDgiiDate(range.fechaVencimiento ?? '')}` }], 'The e-CF is not valid');
      }
      return { encf, n, range };
    });
    const numbers = spent.map((s) => s.n);
    const held = await holdingAnnulments(tx, key.tenantId, key.environment, key.tipo, { desde: Math.min(...numbers), hasta: Math.max(...numbers) });
    const annulled = spent.find((s) => held.some((h) => h.desde <= s.n && s.n <= h.hasta));
    if (annulled !== undefined) throw new AppError('ENCF_ANNULLED', `The eNCF ${annulled.encf} is in an annulment and can never be emitted`);
    // A number at or past a range's position is one it will never give: one fewer left. Below
    // the position (given or passed already), the documents' insert reports a reuse.
    for (const r of ranges) {
      const ahead = spent.filter((s) => s.range === r && s.n >= r.nextValue).length;
      if (ahead > 0) await updateRangePosition(tx, r.id, r.nextValue, Math.max(0, r.remaining - ahead));
    }
    await this.refreshLow(tx, key);
    return spent.map((s) => ({ fechaVencimiento: s.range.fechaVencimiento }));
  }

  /** Whether an annulment that holds its numbers (any but a rejected one) covers the eNCF. */
  async isAnnulled(tx: Queryable, key: SequenceKey, encf: string): Promise<boolean> {
    const n = parseEncf(encf)?.n;
    return n !== undefined && this.holding(tx, key, { desde: n, hasta: n });
  }

  private async holding(tx: Queryable, key: SequenceKey, span: Span): Promise<boolean> {
    return (await holdingAnnulments(tx, key.tenantId, key.environment, key.tipo, span)).length > 0;
  }

  /** sequence.low when the type's numbers left just fell to the watermark; re-arms above it. */
  private async refreshLow(tx: Queryable, key: SequenceKey): Promise<void> {
    const left = await remainingActive(tx, key.tenantId, key.environment, key.tipo, dominicanToday());
    const low = left <= this.config.lowWatermark;
    if (await markLow(tx, key.tenantId, key.environment, key.tipo, low)) {
      await this.outbox.record(tx, key.tenantId, 'sequence.low', {
        environment: key.environment, tipo: key.tipo, disponibles: left, umbral: this.config.lowWatermark, timestamp: new Date().toISOString(),
      });
    }
  }

  /** sequence.expiring, once, for every active range now within SEQUENCE_EXPIRY_WARNING_DAYS of its expiry. */
  private async announceExpiring(tx: Queryable, now = Date.now()): Promise<number> {
    const today = dominicanToday(now);
    const ranges = await claimExpiring(tx, today, addDays(today, this.config.expiryWarningDays));
    for (const r of ranges) {
      const days = Math.round((Date.parse(`${r.fechaVencimiento ?? today}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
      await this.outbox.record(tx, r.tenantId, 'sequence.expiring', {
        environment: r.environment, tipo: r.tipo, id: r.id, desde: formatEncf(r.tipo, r.desde), hasta: formatEncf(r.tipo, r.hasta),
        fechaVencimiento: toDgiiDate(r.fechaVencimiento ?? today), diasRestantes: days, disponibles: r.remaining, timestamp: new Date(now).toISOString(),
      });
    }
    return ranges.length;
  }

  /** The periodic check (job sequences.expiry); answers how many ranges were announced. */
  checkExpiring(now = Date.now()): Promise<number> {
    return this.sql.begin((tx) => this.announceExpiring(tx, now));
  }

  // ---- Annulments: the numbers they hold are kept here, since numbering must skip them.

  /**
   * Records an annulment of `span` and takes its numbers out of numbering. The caller (the
   * documents feature) has checked that every document in the span is in `error`. The span must
   * lie in one registered range, or, outside every range, consist of such documents only.
   */
  async reserveAnnulment(tx: Queryable, key: SequenceKey, span: Span, rncEmisor: string): Promise<AnnulmentRow> {
    await lockTypeAlert(tx, key.tenantId, key.environment, key.tipo);
    const ranges = await lockRanges(tx, key.tenantId, key.environment, key.tipo);
    const from = formatEncf(key.tipo, span.desde);
    const to = formatEncf(key.tipo, span.hasta);
    const [held] = await holdingAnnulments(tx, key.tenantId, key.environment, key.tipo, span);
    if (held !== undefined) throw new AppError('CONFLICT', `The numbers ${formatEncf(key.tipo, held.desde)}–${formatEncf(key.tipo, held.hasta)} are already in an annulment`);
    const range = ranges.find((r) => r.desde <= span.desde && span.hasta <= r.hasta);
    if (range === undefined) {
      const documents = await this.usage.count(tx, key.tenantId, key.environment, from, to);
      if (documents !== span.hasta - span.desde + 1) {
        throw validationError([{ path: 'desde', message: `${from}–${to} must lie within one registered range of type ${key.tipo}, or consist only of documents in error` }], 'The annulment is not valid');
      }
    } else {
      const lo = Math.max(span.desde, range.nextValue);
      if (lo <= span.hasta) {
        const documents = await this.usage.count(tx, key.tenantId, key.environment, formatEncf(key.tipo, lo), to);
        await updateRangePosition(tx, range.id, range.nextValue, Math.max(0, range.remaining - (span.hasta - lo + 1 - documents)));
      }
    }
    const row = await insertAnnulment(tx, { id: randomUUID(), tenantId: key.tenantId, environment: key.environment, tipo: key.tipo, desde: span.desde, hasta: span.hasta, rncEmisor });
    if (ranges.length > 0) await this.refreshLow(tx, key);
    return row;
  }

  /** Moves a `recibido` annulment to its outcome; a rejected one gives back the numbers numbering has not passed. */
  async finishAnnulment(tx: Queryable, a: AnnulmentRow, to: Exclude<AnnulmentEstado, 'recibido'>, dgiiCode: string | null, dgiiMessage: string | null): Promise<AnnulmentRow | undefined> {
    const key = { tenantId: a.tenantId, environment: a.environment, tipo: a.tipo };
    if (to === 'rechazado') await lockTypeAlert(tx, key.tenantId, key.environment, key.tipo);
    const updated = await updateAnnulmentEstado(tx, a.id, to, dgiiCode, dgiiMessage);
    if (updated === undefined || to !== 'rechazado') return updated;
    const ranges = await lockRanges(tx, key.tenantId, key.environment, key.tipo);
    const range = ranges.find((r) => r.desde <= a.desde && a.hasta <= r.hasta);
    if (range !== undefined) {
      const lo = Math.max(a.desde, range.nextValue);
      if (lo <= a.hasta) {
        const documents = await this.usage.count(tx, key.tenantId, key.environment, formatEncf(a.tipo, lo), formatEncf(a.tipo, a.hasta));
        await updateRangePosition(tx, range.id, range.nextValue, range.remaining + (a.hasta - lo + 1 - documents));
      }
      await this.refreshLow(tx, key);
    }
    return updated;
  }

  findAnnulmentById(id: string): Promise<AnnulmentRow | undefined> {
    return findAnnulment(this.sql, id);
  }

  async annulment(tenantId: number, environment: Environment, id: string): Promise<AnnulmentRow> {
    const row = await findAnnulment(this.sql, id, { tenantId, environment });
    if (row === undefined) throw notFound('Annulment');
    return row;
  }

  async annulmentXml(tenantId: number, environment: Environment, id: string): Promise<string> {
    const row = await this.annulment(tenantId, environment, id);
    const xml = await findAnnulmentXml(this.sql, row.id);
    if (xml === null) throw new AppError('NOT_FOUND', row.estado === 'error' ? 'This annulment was never signed (see dgiiMessage)' : 'This annulment is not signed yet; try again shortly');
    return xml;
  }

  annulmentXmlById(id: string): Promise<string | null> {
    return findAnnulmentXml(this.sql, id);
  }

  storeAnnulmentXml(id: string, signedXml: string, fechaHora: string): Promise<string> {
    return storeAnnulmentXml(this.sql, id, signedXml, fechaHora);
  }

  async listAnnulments(tenantId: number, environment: Environment, pageSize: number, after?: string): Promise<{ items: AnnulmentView[]; nextCursor: string | null }> {
    return toPage(await listAnnulments(this.sql, tenantId, environment, pageSize + 1, after), pageSize, annulmentView);
  }
}

