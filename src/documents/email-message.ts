// The Spanish message that carries an accepted e-CF to its buyer: who issued it, which document,
// its amount, how to verify it, and the two files (the printed representation and the signed XML).
import { ECF_TYPES, isEcfTipo } from '../ecf/ecf-types.ts';
import { pesos } from '../ecf/print/index.ts';
import type { EcfObject, EcfValue } from '../ecf/types.ts';

function text(node: EcfValue | undefined, ...path: string[]): string {
  let at = node;
  for (const name of path) at = typeof at === 'object' && at !== null && !Array.isArray(at) ? (at as EcfObject)[name] : undefined;
  return typeof at === 'string' ? at : '';
}

export interface BuyerEmailFacts {
  readonly tipo: number;
  readonly encf: string;
  readonly ecf: EcfObject;
  readonly montoTotal: string;
  readonly securityCode: string;
  readonly timbreUrl: string;
}

export interface BuyerEmailText {
  readonly issuerName: string;
  readonly buyerName: string;
  readonly subject: string;
  readonly body: string;
}

export function buyerEmailText(f: BuyerEmailFacts): BuyerEmailText {
  const issuerName = text(f.ecf, 'Encabezado', 'Emisor', 'RazonSocialEmisor');
  const commercial = text(f.ecf, 'Encabezado', 'Emisor', 'NombreComercial');
  const rnc = text(f.ecf, 'Encabezado', 'Emisor', 'RNCEmisor');
  const buyerName = text(f.ecf, 'Encabezado', 'Comprador', 'RazonSocialComprador');
  const typeName = isEcfTipo(f.tipo) ? ECF_TYPES[f.tipo].name : `Comprobante fiscal electrónico tipo ${f.tipo}`;
  const fecha = text(f.ecf, 'Encabezado', 'Emisor', 'FechaEmision');
  const body = [
    buyerName === '' ? 'Estimado cliente:' : `Estimado(a) ${buyerName}:`,
    '',
    `${commercial === '' ? issuerName : `${commercial} (${issuerName})`}, RNC ${rnc}, le envía su ${typeName} ${f.encf}${fecha === '' ? '' : ` del ${fecha}`}, por un total de ${pesos(f.montoTotal)}, aceptada por la Dirección General de Impuestos Internos (DGII).`,
    '',
    'Adjuntamos su representación impresa (PDF) y el comprobante electrónico firmado (XML).',
    '',
    `Código de seguridad: ${f.securityCode}`,
    `Puede verificar su validez en la DGII: ${f.timbreUrl}`,
    '',
    'Para cualquier consulta, responda a este mensaje.',
    '',
    issuerName,
  ].join('\n');
  return { issuerName, buyerName, subject: `${typeName} ${f.encf} de ${issuerName}`, body };
}
