import { formatEncf, toDgiiDate } from '../ecf/encf.ts';
import type { AnnulmentRow, RangeListRow } from './queries.ts';

// A range's `estado`, derived when it is read:
//   activa   numbers left and not expired: numbering takes from it
//   agotada  nothing left (every number given, used explicitly or annulled)
//   vencida  numbers left, but FechaVencimientoSecuencia has passed: it gives nothing
//   anulada  nothing left and its last number lies in an accepted annulment: its remainder
//            was annulled
export const RANGE_ESTADOS = ['activa', 'agotada', 'vencida', 'anulada'] as const;
export type RangeEstado = (typeof RANGE_ESTADOS)[number];

export function isExpired(fechaVencimiento: string | null, today: string): boolean {
  return fechaVencimiento !== null && fechaVencimiento < today;
}

export function rangeEstado(r: RangeListRow, today: string): RangeEstado {
  if (r.remaining <= 0) return r.lastAnnulled ? 'anulada' : 'agotada';
  return isExpired(r.fechaVencimiento, today) ? 'vencida' : 'activa';
}

export function rangeView(r: RangeListRow, today: string, siguiente: string | null) {
  const estado = rangeEstado(r, today);
  return {
    id: r.id,
    tipo: r.tipo,
    environment: r.environment,
    desde: formatEncf(r.tipo, r.desde),
    hasta: formatEncf(r.tipo, r.hasta),
    fechaVencimiento: r.fechaVencimiento === null ? null : toDgiiDate(r.fechaVencimiento),
    siguiente: estado === 'activa' ? siguiente : null,
    disponibles: r.remaining,
    estado,
    createdAt: r.createdAt.toISOString(),
  };
}

export type RangeView = ReturnType<typeof rangeView>;

export function annulmentView(a: AnnulmentRow) {
  return {
    id: a.id,
    tipo: a.tipo,
    environment: a.environment,
    desde: formatEncf(a.tipo, a.desde),
    hasta: formatEncf(a.tipo, a.hasta),
    cantidad: a.hasta - a.desde + 1,
    estado: a.estado,
    dgiiCode: a.dgiiCode,
    dgiiMessage: a.dgiiMessage,
    fechaHoraAnulacion: a.fechaHoraAnulacion,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export type AnnulmentView = ReturnType<typeof annulmentView>;
