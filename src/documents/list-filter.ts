import { ECF_TIPOS } from '../ecf/ecf-types.ts';
import { ESTADO_NAMES } from '../ecf/states.ts';
import { S, type ParamDoc } from '../http/openapi.ts';
import { DATE_RANGE_QUERY_DOCS } from '../http/paging.ts';
import type { Query } from '../http/query.ts';
import type { ListFilter } from './queries.ts';

// The filters of the documents list, shared by the list and its export so that an export is
// exactly the list a person filtered. A new filter (the ERP `referencia`, issue 18) is added
// here once: its doc, its reading, and its column in queries.ts's listFilters.

export const LIST_FILTER_DOCS: Record<string, ParamDoc> = {
  estado: { description: 'Only documents in this state.', schema: S.string({ enum: ESTADO_NAMES }) },
  tipo: { description: 'Only this e-CF type.', schema: S.int({ enum: [...ECF_TIPOS] }) },
  encf: { description: 'Exactly this eNCF.', schema: S.string({ pattern: '^E\\d{12}$' }) },
  rncComprador: { description: 'Only documents to this buyer: RNC (9 digits) or cédula (11 digits).', schema: S.string({ pattern: '^(\\d{9}|\\d{11})$' }) },
  referencia: { description: 'Exactly this `referencia` (the ERP\'s own id sent at emission).', schema: S.string({ minLength: 1, maxLength: 100 }) },
  ...DATE_RANGE_QUERY_DOCS,
};

export type ListFilterValues = Omit<ListFilter, 'tenantId' | 'environment' | 'limit' | 'after'>;

export function readListFilter(q: Query): ListFilterValues {
  return {
    estado: q.oneOf('estado', ESTADO_NAMES),
    tipo: q.oneOf('tipo', ECF_TIPOS),
    encf: q.string('encf', { pattern: /^E\d{12}$/, message: 'must be E followed by 12 digits' }),
    rncComprador: q.string('rncComprador', { pattern: /^(\d{9}|\d{11})$/, message: 'must be an RNC (9 digits) or cédula (11 digits)' }),
    referencia: q.string('referencia', { pattern: /^[^\p{Cc}]{1,100}$/u, message: 'must be 1 to 100 printable characters' }),
    desde: q.date('desde'),
    hasta: q.date('hasta'),
  };
}
