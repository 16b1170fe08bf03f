import type { Environment } from '../../environments.ts';
import { validateAcecfXml } from '../../ecf/xml/index.ts';
import { textAt, verifyXml } from '../../xml/index.ts';
import { approvalFileName } from '../protocol/paths.ts';
import type { SimulatorState } from './state.ts';

// What DGII's commercial-approval service checks in an ACECF before it takes it, with DGII's
// messages (Descripción Técnica v1.6, "Commercial Approval Errors"): the signature, the XSD, the
// file name {RNCComprador}{eNCF}.xml, a type that takes approvals, and an e-CF DGII accepted.

/** The types whose buyer does not approve them: DGII answers that no approval is required. */
const WITHOUT_APPROVAL: readonly number[] = [32, 41, 43, 46, 47];

/** DGII's reason to refuse the ACECF, or null when it takes it. */
export function approvalRefusal(data: Buffer, filename: string | null, environment: Environment, state: SimulatorState): string | null {
  const verified = verifyXml(data);
  if (!verified.valid) return `La firma del XML no es válida: ${verified.reason}`;
  const errors = validateAcecfXml(verified.document);
  if (errors.length > 0) return `La estructura del archivo XML no es válido: ${errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join('; ')}`;
  const root = verified.document.root;
  const read = (name: string) => textAt(root, ['DetalleAprobacionComercial', name])?.trim() ?? '';
  const rncEmisor = read('RNCEmisor');
  const encf = read('eNCF');
  const expected = approvalFileName(read('RNCComprador'), encf);
  if ((filename ?? '').toLowerCase() !== expected.toLowerCase()) return `El archivo debe llamarse ${expected}`;
  if (WITHOUT_APPROVAL.includes(Number(encf.slice(1, 3)))) return 'Aprobación Comercial no es requerida para este tipo de e-CF';
  if (!state.environments[environment].isAccepted(rncEmisor, encf)) return 'Factura no encontrada para esta Aprobación comercial';
  return null;
}
