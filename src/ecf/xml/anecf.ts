// ANECF (Anulación de e-NCF): the issuer's signed notice to DGII that numbers it was authorised
// will never be used. anecf.xsd allows up to 10 Anulacion lines (one per type) of up to 10 000
// Secuencias (desde–hasta pairs) each, and 10-digit counts.
import { serializeXml } from '../../xml/index.ts';
import { buildGroup } from './build-tree.ts';
import { formatFechaHoraFirma } from './dgii-time.ts';
import { documentSchema } from '../schema/document-schemas.ts';
import { assertBuiltDocumentValid } from './validate-tree.ts';
import type { EcfObject } from '../types.ts';

export const ANECF_MAX_LINES = 10;
export const ANECF_MAX_SEQUENCES = 10_000;

export interface AnecfLine {
  readonly tipo: number;
  /** eNCFs of `tipo`, desde not after hasta. */
  readonly secuencias: readonly { readonly desde: string; readonly hasta: string }[];
}

export interface AnecfParams {
  readonly rncEmisor: string;
  readonly lines: readonly AnecfLine[];
  readonly fechaHoraAnulacion: Date;
}

function numberOf(encf: string, tipo: number): number {
  const m = /^E(\d{2})(\d{10})$/.exec(encf);
  if (m === null || Number(m[1]) !== tipo) throw new RangeError(`${encf} is not an eNCF of type ${tipo}`);
  return Number(m[2]);
}

/** How many numbers the lines annul, per line and in all. */
export function anecfCounts(lines: readonly AnecfLine[]): { perLine: number[]; total: number } {
  const perLine = lines.map((line) => line.secuencias.reduce((sum, s) => {
    const from = numberOf(s.desde, line.tipo);
    const to = numberOf(s.hasta, line.tipo);
    if (from > to) throw new RangeError(`${s.desde} is after ${s.hasta}`);
    return sum + (to - from + 1);
  }, 0));
  return { perLine, total: perLine.reduce((a, b) => a + b, 0) };
}

/** The unsigned <ANECF>; throws RangeError for data the XSD refuses. */
export function buildAnecfXml(p: AnecfParams): string {
  if (p.lines.length < 1 || p.lines.length > ANECF_MAX_LINES) throw new RangeError(`an ANECF has 1 to ${ANECF_MAX_LINES} lines`);
  for (const line of p.lines) {
    if (line.secuencias.length < 1 || line.secuencias.length > ANECF_MAX_SEQUENCES) throw new RangeError(`an ANECF line has 1 to ${ANECF_MAX_SEQUENCES} ranges`);
  }
  const { perLine, total } = anecfCounts(p.lines);
  if (total > 9_999_999_999) throw new RangeError('an ANECF annuls at most 9 999 999 999 numbers');
  const schema = documentSchema('ANECF');
  const value: EcfObject = {
    Encabezado: {
      Version: '1.0',
      RncEmisor: p.rncEmisor,
      CantidadeNCFAnulados: String(total),
      FechaHoraAnulacioneNCF: formatFechaHoraFirma(p.fechaHoraAnulacion),
    },
    DetalleAnulacion: {
      Anulacion: p.lines.map((line, i) => ({
        NoLinea: String(i + 1),
        TipoeCF: String(line.tipo),
        TablaRangoSecuenciasAnuladaseNCF: {
          Secuencias: line.secuencias.map((s) => ({ SecuenciaeNCFDesde: s.desde, SecuenciaeNCFHasta: s.hasta })),
        },
        CantidadeNCFAnulados: String(perLine[i]),
      })),
    },
  };
  const root = buildGroup(schema.root, value, 'ANECF');
  if (root === undefined) throw new Error('internal: the ANECF root came out empty');
  const xml = serializeXml(root, { declaration: true });
  assertBuiltDocumentValid(xml, schema);
  return xml;
}
