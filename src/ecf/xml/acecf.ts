// ACECF (Aprobación Comercial): the buyer's signed answer to an e-CF it received, approving it
// (Estado 1) or rejecting it (Estado 2, with DetalleMotivoRechazo). It goes to the emisor's
// receiver and to DGII.
import { serializeXml } from '../../xml/index.ts';
import { buildGroup } from './build-tree.ts';
import { formatFechaHoraFirma } from './dgii-time.ts';
import { documentSchema } from '../schema/document-schemas.ts';
import { assertBuiltDocumentValid } from './validate-tree.ts';
import type { EcfObject } from '../types.ts';

export interface AcecfParams {
  readonly rncEmisor: string;
  readonly encf: string;
  /** dd-MM-yyyy */
  readonly fechaEmision: string;
  /** Two decimals, as the XSD wants. */
  readonly montoTotal: string;
  readonly rncComprador: string;
  readonly estado: 1 | 2;
  /** Required with Estado 2, refused with Estado 1. */
  readonly detalleMotivoRechazo?: string;
  readonly fechaHoraAprobacion: Date;
}

/** The unsigned <ACECF>; throws RangeError for data the XSD refuses. */
export function buildAcecfXml(p: AcecfParams): string {
  if (p.estado === 2 && (p.detalleMotivoRechazo ?? '').trim() === '') throw new RangeError('a rejection (Estado 2) needs its DetalleMotivoRechazo');
  if (p.estado === 1 && p.detalleMotivoRechazo !== undefined) throw new RangeError('DetalleMotivoRechazo only goes with a rejection (Estado 2)');
  const schema = documentSchema('ACECF');
  const detalle: EcfObject = {
    Version: '1.0',
    RNCEmisor: p.rncEmisor,
    eNCF: p.encf,
    FechaEmision: p.fechaEmision,
    MontoTotal: p.montoTotal,
    RNCComprador: p.rncComprador,
    Estado: String(p.estado),
    ...(p.detalleMotivoRechazo === undefined ? {} : { DetalleMotivoRechazo: p.detalleMotivoRechazo.trim() }),
    FechaHoraAprobacionComercial: formatFechaHoraFirma(p.fechaHoraAprobacion),
  };
  const root = buildGroup(schema.root, { DetalleAprobacionComercial: detalle }, 'ACECF');
  if (root === undefined) throw new Error('internal: the ACECF root came out empty');
  const xml = serializeXml(root, { declaration: true });
  assertBuiltDocumentValid(xml, schema);
  return xml;
}
