import type { Environment } from '../environments.ts';
// Public shapes of the e-CF validation API.
import type { EcfTipo } from './ecf-types.ts';

export type FieldError = { path: string; message: string };

/**
 * Normalised e-CF content. Every leaf is text: JSON strings verbatim, JSON numbers as their
 * shortest exact decimal text (or the XSD enumeration literal they equal). Elements that may
 * repeat are always arrays. Keys follow XSD order.
 */
export type EcfValue = string | EcfObject | readonly EcfValue[];
export interface EcfObject {
  readonly [name: string]: EcfValue | undefined;
}

export interface EcfDocument {
  readonly tipo: EcfTipo;
  /** Undefined when the client left numbering to the service. */
  readonly eNCF: string | undefined;
  readonly RNCEmisor: string;
  /** Absent in types 43 and 47 (no such element) and optional in 32, 33, 34, 44, 46. */
  readonly RNCComprador: string | undefined;
  /** dd-MM-yyyy, as sent. */
  readonly FechaEmision: string;
  /** Decimal text as sent (e.g. "112467.00"); parse with decimal.ts, never with parseFloat. */
  readonly MontoTotal: string;
  /** Content of the "ECF" element, normalised. */
  readonly ecf: EcfObject;
}

export type ValidationResult =
  | { ok: true; document: EcfDocument }
  | { ok: false; errors: FieldError[] };

/** What every stored e-CF of a tenant carries beside its XML: who, which number, when, how much. */
export interface IssuedEcf {
  tenantId: number;
  environment: Environment;
  tipo: number;
  encf: string;
  rncEmisor: string;
  rncComprador: string | null;
  /** yyyy-MM-dd */
  fechaEmision: string;
  montoTotal: string;
  ecf: EcfObject;
}
