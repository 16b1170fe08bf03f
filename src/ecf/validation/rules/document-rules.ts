// Rules across the header: e-NCF vs TipoeCF, the order of dates, credit-note timing.
import { ENCF_FORMAT, dateOrdinal } from '../leaf-formats.ts';
import type { Finding, RuleContext } from './context.ts';
import type { Rule } from './rule.ts';
import { compare, parseDecimal } from '../../decimal.ts';

const idDoc = (ctx: RuleContext) => ctx.root.group('Encabezado').group('IdDoc');

const encfMatchesType: Rule = {
  id: 'encf-type',
  message: 'must belong to the document\'s type: its two digits after "E" must equal TipoeCF',
  check: (ctx) => {
    const encf = idDoc(ctx).text('eNCF');
    const prefix = encf === undefined ? undefined : ENCF_FORMAT.exec(encf)?.[1];
    return prefix === undefined || Number(prefix) === ctx.tipo
      ? []
      : [{ path: idDoc(ctx).at('eNCF'), detail: `${encf ?? ''} is type ${prefix}, TipoeCF is ${ctx.tipo}` }];
  },
};

/** Pairs of dates where `later` must not fall before `earlier`; reported at `later`. */
const DATE_ORDER = [
  { id: 'sequence-not-expired', earlier: 'Emisor.FechaEmision', later: 'IdDoc.FechaVencimientoSecuencia', message: 'must not be before FechaEmision: the e-NCF sequence would be expired' },
  { id: 'payment-after-issue', earlier: 'Emisor.FechaEmision', later: 'IdDoc.FechaLimitePago', message: 'must not be before FechaEmision' },
  { id: 'service-period-order', earlier: 'IdDoc.FechaDesde', later: 'IdDoc.FechaHasta', message: 'must not be before FechaDesde' },
] as const;

function dateOrderRule(spec: (typeof DATE_ORDER)[number]): Rule {
  const locate = (ctx: RuleContext, dotted: string): [string | undefined, string] => {
    const [group, name] = dotted.split('.') as [string, string];
    const view = ctx.root.group('Encabezado').group(group);
    return [view.text(name), view.at(name)];
  };
  return {
    id: spec.id,
    message: spec.message,
    check: (ctx) => {
      const [earlier] = locate(ctx, spec.earlier);
      const [later, path] = locate(ctx, spec.later);
      const a = earlier === undefined ? undefined : dateOrdinal(earlier);
      const b = later === undefined ? undefined : dateOrdinal(later);
      return a !== undefined && b !== undefined && b < a ? [{ path, detail: `${later ?? ''} is before ${earlier ?? ''}` }] : [];
    },
  };
}

/** DGII: a credit note more than 30 calendar days after the modified e-CF cannot reduce ITBIS. */
const creditNoteIndicator: Rule = {
  id: 'credit-note-30-days',
  message: 'must be 1 when FechaEmision is more than 30 days after FechaNCFModificado, otherwise 0',
  appliesTo: [34],
  check: (ctx): Finding[] => {
    const issued = dateOrdinal(ctx.root.group('Encabezado').group('Emisor').text('FechaEmision') ?? '');
    const modified = dateOrdinal(ctx.root.group('InformacionReferencia').text('FechaNCFModificado') ?? '');
    const indicator = idDoc(ctx).text('IndicadorNotaCredito');
    if (issued === undefined || modified === undefined || indicator === undefined) return [];
    const expected = issued - modified > 30 ? 1 : 0;
    return Number(indicator) === expected
      ? []
      : [{ path: idDoc(ctx).at('IndicadorNotaCredito'), detail: `${issued - modified} days after the modified e-CF, expected ${expected}` }];
  },
};

// The RFCE threshold (xml/rfce.ts, which imports validation: kept here as a literal to avoid the cycle).
const RFCE_MONTO_LIMITE = '250000';
const CONSUMER_LIMIT = parseDecimal(RFCE_MONTO_LIMITE);

/**
 * DGII: a consumer invoice (32) of RD$250,000 or more is sent whole, not summarised, and must
 * identify its buyer: RNCComprador or IdentificadorExtranjero, with RazonSocialComprador.
 */
const largeConsumerBuyer: Rule = {
  id: 'consumer-250k-buyer',
  message: 'is required in a type 32 whose MontoTotal is RD$250,000 or more: the buyer must be identified (RNCComprador or IdentificadorExtranjero, with RazonSocialComprador)',
  appliesTo: [32],
  check: (ctx): Finding[] => {
    const total = ctx.root.group('Encabezado').group('Totales').amount('MontoTotal');
    if (total === undefined || CONSUMER_LIMIT === undefined || compare(total, CONSUMER_LIMIT) < 0) return [];
    const comprador = ctx.root.group('Encabezado').group('Comprador');
    const findings: Finding[] = [];
    if (comprador.text('RNCComprador') === undefined && comprador.text('IdentificadorExtranjero') === undefined) {
      findings.push({ path: comprador.at('RNCComprador'), detail: `MontoTotal is ${RFCE_MONTO_LIMITE} or more` });
    }
    if (comprador.text('RazonSocialComprador') === undefined) findings.push({ path: comprador.at('RazonSocialComprador'), detail: `MontoTotal is ${RFCE_MONTO_LIMITE} or more` });
    return findings;
  },
};

export const DOCUMENT_RULES: readonly Rule[] = [encfMatchesType, ...DATE_ORDER.map(dateOrderRule), creditNoteIndicator, largeConsumerBuyer];
