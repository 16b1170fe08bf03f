// The signature facts a received e-CF prints with. The sender's service keeps its timbre URL to
// itself, so it is rebuilt here the way an issued one is (src/documents/signing.ts), from the
// received XML as stored: its values exactly as written, its FechaHoraFirma, and the security
// code taken from its SignatureValue when it was received.
import type { Environment } from '../environments.ts';
import type { PrintSignature } from '../ecf/print/index.ts';
import type { EcfObject, EcfValue } from '../ecf/types.ts';
import { isEcfTipo } from '../ecf/ecf-types.ts';
import { sentAsRfce, timbreUrl } from '../ecf/xml/index.ts';

function leaf(ecf: EcfObject, path: readonly string[]): string {
  let node: EcfValue | undefined = ecf;
  for (const name of path) node = typeof node === 'object' && !Array.isArray(node) ? (node as EcfObject)[name] : undefined;
  return typeof node === 'string' ? node : '';
}

export interface ReceivedForPrint {
  environment: Environment;
  tipo: number;
  encf: string;
  rncEmisor: string;
  rncComprador: string | null;
  securityCode: string;
  ecf: EcfObject;
}

/** Throws a RangeError when the stored content lacks a decimal MontoTotal (it never should). */
export function receivedSignature(r: ReceivedForPrint): PrintSignature {
  const montoTotal = leaf(r.ecf, ['Encabezado', 'Totales', 'MontoTotal']);
  const fechaHoraFirma = leaf(r.ecf, ['FechaHoraFirma']);
  return {
    securityCode: r.securityCode,
    fechaHoraFirma,
    timbreUrl: timbreUrl({
      environment: r.environment,
      rfce: isEcfTipo(r.tipo) && sentAsRfce(r.tipo, montoTotal),
      rncEmisor: r.rncEmisor,
      rncComprador: r.rncComprador === '' ? null : r.rncComprador,
      encf: r.encf,
      fechaEmision: leaf(r.ecf, ['Encabezado', 'Emisor', 'FechaEmision']),
      montoTotal,
      fechaFirma: fechaHoraFirma,
      codigoSeguridad: r.securityCode,
    }),
  };
}
