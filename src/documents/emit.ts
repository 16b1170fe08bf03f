import { randomUUID } from 'node:crypto';
import type { Sql, Queryable } from '../db/connect.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { insertJob } from '../queue/queries.ts';
import { encfExists, insertDocument, nextSequenceValue, type DocumentRow } from './queries.ts';
import { recordCreation } from './transitions.ts';
import type { EcfDocument, EcfObject } from './validation/types.ts';
import { dgiiToIsoDate } from './views.ts';

const MAX_SEQUENCE = 9_999_999_999;
const ENCF_CONSTRAINT = 'documents_encf_key';

export function formatEncf(tipo: number, n: number): string {
  return `E${tipo}${String(n).padStart(10, '0')}`;
}

/** The normalised ECF with eNCF placed right after TipoeCF, where the XSD wants it. */
function withEncf(ecf: EcfObject, encf: string): EcfObject {
  const encabezado = ecf.Encabezado as EcfObject;
  const idDoc: Record<string, EcfObject[string]> = {};
  for (const [k, v] of Object.entries(encabezado.IdDoc as EcfObject)) {
    if (k === 'eNCF') continue;
    idDoc[k] = v;
    if (k === 'TipoeCF') idDoc.eNCF = encf;
  }
  return { ...ecf, Encabezado: { ...encabezado, IdDoc: idDoc } };
}

export interface EmitInput {
  tenantId: number;
  environment: Environment;
  document: EcfDocument;
}

/**
 * Stores a validated document as `recibido` with its first history entry, its event and
 * its submission job, all in one transaction (`inTransaction` lets the caller add its
 * own writes, such as the idempotent response, to it).
 *
 * Numbering: with eNCF omitted the next number of the (tenant, environment, type)
 * sequence is taken under that sequence row's lock, so concurrent emits queue on it and
 * a rolled-back emit gives its number back: no gaps, no duplicates. Numbers the tenant
 * used explicitly are skipped. An explicit eNCF already used is 409.
 */
export async function emitDocument(
  sql: Sql,
  outbox: EventOutbox,
  input: EmitInput,
  inTransaction: (tx: Queryable, doc: DocumentRow) => Promise<void>,
): Promise<DocumentRow> {
  const { tenantId, environment, document } = input;
  for (let attempt = 1; ; attempt++) {
    try {
      return await sql.begin(async (tx) => {
        let encf = document.eNCF;
        if (encf === undefined) {
          do {
            const n = await nextSequenceValue(tx, tenantId, environment, document.tipo);
            if (n > MAX_SEQUENCE) throw new AppError('CONFLICT', `The eNCF sequence of type ${document.tipo} is exhausted`);
            encf = formatEncf(document.tipo, n);
          } while (await encfExists(tx, tenantId, environment, encf));
        }
        const doc = await insertDocument(tx, {
          id: randomUUID(),
          tenantId,
          environment,
          tipo: document.tipo,
          encf,
          rncEmisor: document.RNCEmisor,
          rncComprador: document.RNCComprador ?? null,
          fechaEmision: dgiiToIsoDate(document.FechaEmision),
          montoTotal: document.MontoTotal,
          ecf: withEncf(document.ecf, encf),
        });
        await recordCreation(tx, outbox, doc);
        await insertJob(tx, { kind: 'document.submit', payload: { documentId: doc.id } });
        await inTransaction(tx, doc);
        return doc;
      });
    } catch (err) {
      if (!isUniqueViolation(err, ENCF_CONSTRAINT)) throw err;
      if (document.eNCF !== undefined) throw new AppError('ENCF_ALREADY_USED', `The eNCF ${document.eNCF} was already used in ${environment}`);
      // A number chosen while another emit stored it explicitly: the retry skips it.
      if (attempt >= 3) throw err;
    }
  }
}
