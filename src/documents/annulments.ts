import type { Queryable, Sql } from '../db/connect.ts';
import { formatEncf } from '../ecf/encf.ts';
import { type Environment, publishes } from '../environments.ts';
import { AppError, validationError } from '../errors.ts';
import { insertJob } from '../queue/queries.ts';
import type { SequenceService } from '../sequences/service.ts';
import { readSpan } from '../sequences/span-input.ts';
import { annulmentView, type AnnulmentView } from '../sequences/views.ts';
import { documentsIn, firstDocumentNotIn } from './queries.ts';

// Annulling numbers that will never be used (POST /{env}/anulaciones): unused numbers of a
// range and numbers of documents in `error`. One request is one span of one type, sent as one
// ANECF with one Anulacion line and one Secuencias pair: DGII's limits per ANECF (10 lines,
// 10 000 pairs a line, counts of 10 digits) are therefore never reached, and nothing is split.
// The span is checked, its numbers held and the submission queued in one transaction;
// annulment-job.ts signs and sends it.

/** Documents listed with an annulment's detail. */
const MAX_LISTED = 1000;

export class AnnulmentService {
  private readonly sql: Sql;
  private readonly sequences: SequenceService;
  private readonly rncOf: (tenantId: number) => Promise<string>;
  private readonly onQueued: () => void;

  constructor(sql: Sql, sequences: SequenceService, rncOf: (tenantId: number) => Promise<string>, onQueued: () => void) {
    this.sql = sql;
    this.sequences = sequences;
    this.rncOf = rncOf;
    this.onQueued = onQueued;
  }

  async request(tenantId: number, environment: Environment, body: unknown, inTransaction: (tx: Queryable, view: AnnulmentView) => Promise<void>): Promise<AnnulmentView> {
    if (!publishes(environment, 'anulacionrangos')) {
      throw new AppError('CONFLICT', `DGII publishes no Anulación Rangos service in ${environment} (Descripción Técnica v1.6, bitácora 28-12-2020): numbers of this environment cannot be annulled`);
    }
    const { errors, span } = readSpan(body);
    if (errors.length > 0 || span === null) throw validationError(errors, 'The annulment is not valid');
    const { tipo, desde, hasta } = span;

    const rnc = await this.rncOf(tenantId);
    const key = { tenantId, environment, tipo };
    const view = await this.sql.begin(async (tx) => {
      // Holding the range locks first, so no emit slips a document into the span meanwhile.
      const row = await this.sequences.reserveAnnulment(tx, key, { desde: span.from, hasta: span.to }, rnc);
      const blocking = await firstDocumentNotIn(tx, tenantId, environment, desde, hasta, 'error');
      if (blocking !== undefined) {
        throw new AppError('CONFLICT', `The range holds ${blocking.encf}, which is ${blocking.estado}: only unused numbers and documents in error can be annulled`);
      }
      await insertJob(tx, { kind: 'annulment.submit', payload: { annulmentId: row.id } });
      const shown = annulmentView(row);
      await inTransaction(tx, shown);
      return shown;
    });
    this.onQueued();
    return view;
  }

  /** The annulment with the documents whose numbers it covers. */
  async detail(tenantId: number, environment: Environment, id: string) {
    const row = await this.sequences.annulment(tenantId, environment, id);
    const docs = await documentsIn(this.sql, tenantId, environment, formatEncf(row.tipo, row.desde), formatEncf(row.tipo, row.hasta), MAX_LISTED);
    return { ...annulmentView(row), documentos: docs.map((d) => ({ internalTrackId: d.id, encf: d.encf, estado: d.estado })) };
  }
}
