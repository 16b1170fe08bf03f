// ARECF (Acuse de Recibo): the receiver's signed answer to an e-CF another taxpayer sent it.
import { serializeXml } from '../../xml/index.ts';
import { buildGroup } from './build-tree.ts';
import { formatFechaHoraFirma } from './dgii-time.ts';
import { documentSchema } from '../schema/document-schemas.ts';
import { assertBuiltDocumentValid } from './validate-tree.ts';
import type { EcfObject } from '../types.ts';

/** ARECF Estado. */
export const ESTADO_ACUSE = { recibido: 0, noRecibido: 1 } as const;

/** CodigoMotivoNoRecibido, given exactly when Estado is 1 (no recibido). */
export const MOTIVO_NO_RECIBIDO = {
  1: 'Error de especificación',
  2: 'Error de firma digital',
  3: 'Envío duplicado',
  4: 'RNC comprador no corresponde',
} as const;

export type MotivoNoRecibido = keyof typeof MOTIVO_NO_RECIBIDO;

export interface ArecfParams {
  readonly rncEmisor: string;
  readonly rncComprador: string;
  readonly encf: string;
  readonly estado: 0 | 1;
  readonly codigoMotivoNoRecibido?: MotivoNoRecibido;
  readonly fechaHoraAcuseRecibo: Date;
}

/** The unsigned <ARECF>; throws RangeError for data the XSD or DGII's rules refuse. */
export function buildArecfXml(p: ArecfParams): string {
  if (p.estado === ESTADO_ACUSE.noRecibido && p.codigoMotivoNoRecibido === undefined) {
    throw new RangeError('Estado 1 (e-CF no recibido) needs a CodigoMotivoNoRecibido');
  }
  if (p.estado === ESTADO_ACUSE.recibido && p.codigoMotivoNoRecibido !== undefined) {
    throw new RangeError('CodigoMotivoNoRecibido only goes with Estado 1 (e-CF no recibido)');
  }
  const schema = documentSchema('ARECF');
  const detalle: EcfObject = {
    Version: '1.0',
    RNCEmisor: p.rncEmisor,
    RNCComprador: p.rncComprador,
    eNCF: p.encf,
    Estado: String(p.estado),
    ...(p.codigoMotivoNoRecibido === undefined ? {} : { CodigoMotivoNoRecibido: String(p.codigoMotivoNoRecibido) }),
    FechaHoraAcuseRecibo: formatFechaHoraFirma(p.fechaHoraAcuseRecibo),
  };
  const root = buildGroup(schema.root, { DetalleAcusedeRecibo: detalle }, 'ARECF');
  if (root === undefined) throw new Error('internal: the ARECF root came out empty');
  const xml = serializeXml(root, { declaration: true });
  assertBuiltDocumentValid(xml, schema);
  return xml;
}
