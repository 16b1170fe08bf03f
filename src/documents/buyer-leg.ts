import type { Estado } from '../ecf/states.ts';

// Which e-CF go to the buyer's receiver, and when.
//
// The types that name an electronic buyer by RNC: 31 (crédito fiscal), 32 (consumo, when it
// names the buyer), 33 and 34 (notes), 44 (regímenes especiales), 45 (gubernamental). 41 is a
// purchase the tenant records itself, 43 has no buyer, 46 and 47 have foreign counterparts.
//
// When: after DGII's verdict of aceptado or aceptado_condicional, never before. DGII's technical
// description has the emisor send the e-CF to DGII and to the buyer, and only an accepted e-CF
// has fiscal validity; delivering first would hand the buyer documents DGII may still reject,
// which it then must treat as void. So a rejected (or failed) e-CF is never delivered.

export const BUYER_TIPOS: readonly number[] = [31, 32, 33, 34, 44, 45];

export function buyerLegApplies(tipo: number, rncComprador: string | null): boolean {
  return BUYER_TIPOS.includes(tipo) && rncComprador !== null && /^(\d{9}|\d{11})$/.test(rncComprador);
}

export function deliversAfter(estado: Estado): boolean {
  return estado === 'aceptado' || estado === 'aceptado_condicional';
}
