// Which e-CF types take part in the exchange between taxpayers, by DGII's *Descripción técnica
// de facturación electrónica* v1.6 (transcribed in Tikiti/ecf-docs,
// markdown/technical-reports/technical-description.md): types 32, 41, 43, 45, 46 and 47 are not
// sent to another taxpayer (its receiver refuses them), and commercial approval does not apply to
// 32, 41, 43, 46 and 47 (DGII answers "Aprobación Comercial no es requerida para este tipo de
// e-CF"). docs/receiving.md gives the table.

/** Not sent to another taxpayer's receiver; a receiver answers them ARECF Estado 1, motivo 1. */
export const NOT_EXCHANGED_TIPOS: readonly number[] = [32, 41, 43, 45, 46, 47];

/** No commercial approval (ACECF) is given or taken about these types. */
export const NO_APPROVAL_TIPOS: readonly number[] = [32, 41, 43, 46, 47];

export function isExchanged(tipo: number): boolean {
  return !NOT_EXCHANGED_TIPOS.includes(tipo);
}

export function takesApproval(tipo: number): boolean {
  return !NO_APPROVAL_TIPOS.includes(tipo);
}

/** The type an eNCF names (E + 2 digits + sequence), or null when it names none. */
export function tipoOfEncf(encf: string): number | null {
  const m = /^E(\d{2})\d{10}$/.exec(encf);
  return m === null ? null : Number(m[1]);
}

/** DGII's words for an approval of a type that takes none. */
export const APPROVAL_NOT_REQUIRED = 'Aprobación Comercial no es requerida para este tipo de e-CF';
