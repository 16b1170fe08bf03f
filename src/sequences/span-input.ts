import { parseEncf } from '../ecf/encf.ts';
import { ECF_TIPOS, isEcfTipo, type EcfTipo } from '../ecf/ecf-types.ts';
import type { FieldError } from '../errors.ts';
import { Input } from '../lib/input.ts';

// The `{ tipo, desde, hasta }` span both a range registration and an annulment start from: a type
// and two eNCFs of that type, in order. Field errors are collected, not thrown, so the caller adds
// its own (a range's fechaVencimiento) and answers one 422 with all of them.

const ENCF = /^E\d{12}$/;

export interface SpanInput {
  input: Input;
  errors: FieldError[];
  /** Null when any part is not valid (its errors say why). */
  span: { tipo: EcfTipo; desde: string; hasta: string; from: number; to: number } | null;
}

/** Reads tipo, desde and hasta; `more` reads the caller's other fields before the input is closed. */
export function readSpan(body: unknown, more: (input: Input) => void = () => {}): SpanInput {
  const input = new Input(body);
  const tipoRaw = (body as Record<string, unknown> | null)?.tipo;
  input.has('tipo');
  const desde = input.string('desde', { max: 13, pattern: ENCF, patternMessage: 'must be an eNCF: E, the type and 10 digits' });
  const hasta = input.string('hasta', { max: 13, pattern: ENCF, patternMessage: 'must be an eNCF: E, the type and 10 digits' });
  more(input);
  input.done();
  const errors = [...input.errors];
  const tipo = typeof tipoRaw === 'number' && isEcfTipo(tipoRaw) ? tipoRaw : null;
  if (tipo === null) errors.push({ path: 'tipo', message: `must be one of ${ECF_TIPOS.join(', ')}` });
  const from = parseEncf(desde);
  const to = parseEncf(hasta);
  if (tipo !== null && from !== null && from.tipo !== tipo) errors.push({ path: 'desde', message: `must start with E${tipo}` });
  if (tipo !== null && to !== null && to.tipo !== tipo) errors.push({ path: 'hasta', message: `must start with E${tipo}` });
  if (from !== null && to !== null && from.n > to.n) errors.push({ path: 'hasta', message: 'must not be before desde' });
  if (from !== null && from.n < 1) errors.push({ path: 'desde', message: 'must be at least 1' });
  const span = tipo === null || from === null || to === null ? null : { tipo, desde, hasta, from: from.n, to: to.n };
  return { input, errors, span };
}
