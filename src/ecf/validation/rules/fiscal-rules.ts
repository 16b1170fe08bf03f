// DGII's rules on who a document is issued by and to, and on how it is paid, that the XSDs do
// not express (docs/dgii.md, "Rules at emission", cites each one's source).
import { taxIdProblem } from '../../tax-id.ts';
import type { Finding, RuleContext, View } from './context.ts';
import type { Rule } from './rule.ts';

const encabezado = (ctx: RuleContext): View => ctx.root.group('Encabezado');
const comprador = (ctx: RuleContext): View => encabezado(ctx).group('Comprador');

/** A number's check-digit problem at `view.name`, if it is there. */
function checkDigit(view: View, name: string): Finding[] {
  const value = view.text(name);
  const problem = value === undefined ? undefined : taxIdProblem(value);
  return problem === undefined ? [] : [{ path: view.at(name), detail: problem }];
}

/** Formato e-CF v1.0, fields 20, 38 and F.2: "RNC o Cédula válido". */
const taxIdCheckDigits: Rule = {
  id: 'tax-id-check-digit',
  message: 'must be a valid RNC (9 digits, DGII modulus-11 check digit) or cédula (11 digits, Luhn check digit)',
  check: (ctx) => [
    ...checkDigit(encabezado(ctx).group('Emisor'), 'RNCEmisor'),
    ...checkDigit(comprador(ctx), 'RNCComprador'),
    ...checkDigit(ctx.root.group('InformacionReferencia'), 'RNCOtroContribuyente'),
  ],
};

/** A type 41 (compras) is issued to an informal seller: a person, identified by cédula. */
const informalSellerCedula: Rule = {
  id: 'compras-seller-cedula',
  message: 'must be the informal seller\'s cédula (11 digits) in a type 41 (comprobante de compras)',
  appliesTo: [41],
  check: (ctx) => {
    const rnc = comprador(ctx).text('RNCComprador');
    return rnc === undefined || rnc.length === 11 ? [] : [{ path: comprador(ctx).at('RNCComprador'), detail: `${rnc} is an RNC` }];
  },
};

/**
 * 44 (regímenes especiales) and 46 (exportaciones) identify their buyer: RNCComprador or, for a
 * foreign one, IdentificadorExtranjero (Formato e-CF, footnotes 6–9).
 */
const identifiedBuyer: Rule = {
  id: 'buyer-rnc-or-foreign-id',
  message: 'is required in a type 44 or 46: the buyer is identified by RNCComprador or, when foreign, IdentificadorExtranjero',
  appliesTo: [44, 46],
  check: (ctx) => {
    const c = comprador(ctx);
    return c.sent('RNCComprador') || c.sent('IdentificadorExtranjero') ? [] : [{ path: c.at('RNCComprador'), detail: 'neither RNCComprador nor IdentificadorExtranjero was sent' }];
  },
};

/**
 * A buyer is identified by RNCComprador or, when foreign, by IdentificadorExtranjero, never by
 * both: "cuando exista IdentificadorExtranjero, RNCComprador debe omitirse" (Formato e-CF,
 * footnotes 5, 7 and 8), in every type that carries the two.
 */
const oneBuyerIdentity: Rule = {
  id: 'buyer-one-identity',
  message: 'must be left out when RNCComprador is sent: a buyer is identified by RNCComprador or, when foreign, by IdentificadorExtranjero, not by both',
  check: (ctx) => {
    const c = comprador(ctx);
    return c.sent('RNCComprador') && c.sent('IdentificadorExtranjero') ? [{ path: c.at('IdentificadorExtranjero') }] : [];
  },
};

/**
 * A type 45 (gubernamental) is sold to a State body. DGII gives State bodies RNCs of the 4
 * series (4xxxxxxxx); a cédula or a company's RNC (1xxxxxxxx) cannot be one.
 */
const governmentBuyer: Rule = {
  id: 'government-buyer',
  message: 'must be the RNC of a government body in a type 45: 9 digits of DGII\'s State series, starting with 4',
  appliesTo: [45],
  check: (ctx) => {
    const rnc = comprador(ctx).text('RNCComprador');
    return rnc === undefined || /^4\d{8}$/.test(rnc) ? [] : [{ path: comprador(ctx).at('RNCComprador'), detail: `${rnc} is not of the State series` }];
  },
};

/** A type 47 (pagos al exterior) names the non-resident it pays. */
const foreignPayee: Rule = {
  id: 'foreign-payee',
  message: 'is required in a type 47: the foreign payee (IdentificadorExtranjero and RazonSocialComprador)',
  appliesTo: [47],
  check: (ctx) => {
    const c = comprador(ctx);
    return ['IdentificadorExtranjero', 'RazonSocialComprador'].filter((name) => !c.sent(name)).map((name) => ({ path: c.at(name) }));
  },
};

/** TipoPago 2 (crédito) says when payment is due: FechaLimitePago (Formato e-CF, field 10). */
const creditDeadline: Rule = {
  id: 'credit-payment-deadline',
  message: 'is required when TipoPago is 2 (crédito)',
  check: (ctx) => {
    const idDoc = encabezado(ctx).group('IdDoc');
    if (!ctx.has('Encabezado.IdDoc.FechaLimitePago') || idDoc.text('TipoPago') !== '2' || idDoc.sent('FechaLimitePago')) return [];
    return [{ path: idDoc.at('FechaLimitePago') }];
  },
};

export const FISCAL_RULES: readonly Rule[] = [taxIdCheckDigits, informalSellerCedula, identifiedBuyer, oneBuyerIdentity, governmentBuyer, foreignPayee, creditDeadline];
