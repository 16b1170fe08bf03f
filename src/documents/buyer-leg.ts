import { isExchanged } from '../ecf/exchange-rules.ts';
import type { Estado } from '../ecf/states.ts';

// Which e-CF go to the buyer's receiver, and when.
//
// Which: DGII's v1.6 table (ecf/exchange-rules.ts): 31 (crédito fiscal), 33 and 34 (notes) and
// 44 (regímenes especiales), when they name the buyer by RNC. 32, 41, 43, 45, 46 and 47 are not
// sent to another taxpayer: their buyer leg is no_aplica.
//
// When: after DGII's verdict of aceptado or aceptado_condicional, never before. DGII's technical
// description has the emisor send the e-CF to DGII and to the buyer, and only an accepted e-CF
// has fiscal validity; delivering first would hand the buyer documents DGII may still reject,
// which it then must treat as void. So a rejected (or failed) e-CF is never delivered.

export function buyerLegApplies(tipo: number, rncComprador: string | null): boolean {
  return isExchanged(tipo) && rncComprador !== null && /^(\d{9}|\d{11})$/.test(rncComprador);
}

export function deliversAfter(estado: Estado): boolean {
  return estado === 'aceptado' || estado === 'aceptado_condicional';
}
