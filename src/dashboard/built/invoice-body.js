// Built from src/dashboard/client/invoice-body.ts by `npm run build:dashboard`: edit that file, not this one.
import { compare, formatDec, parseDecimal, ZERO } from "./decimal.js";
import { ECF_TYPES } from "./ecf-types.js";
import { documentTotals, lineMonto } from "./totals.js";
export const MAIN_TIPOS = [31, 32, 33, 34];
export const OTHER_TIPOS = [41, 43, 44, 45, 46, 47];
const TAXED = [1, 2, 4];
const COMPRADOR_REQUIRED = new Set([31, 32, 41, 44, 45, 46]);
export const TYPE_FORMS = {
    31: { buyer: 'rnc-required', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
    32: { buyer: 'rnc-optional', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
    33: { buyer: 'rnc-optional', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
    34: { buyer: 'rnc-optional', payment: 'type', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
    41: { buyer: 'rnc-required', payment: 'full', income: false, gravadoIndicator: true, rates: TAXED, retention: true, email: true },
    43: { buyer: 'none', payment: 'type', income: false, gravadoIndicator: false, rates: [4], retention: false, email: false },
    44: { buyer: 'rnc-optional', payment: 'full', income: true, gravadoIndicator: false, rates: [4], retention: false, email: true },
    45: { buyer: 'rnc-required', payment: 'full', income: true, gravadoIndicator: true, rates: TAXED, retention: false, email: true },
    46: { buyer: 'foreign', payment: 'full', income: true, gravadoIndicator: false, rates: [3], retention: false, email: true },
    47: { buyer: 'foreign', payment: 'full', income: false, gravadoIndicator: false, rates: [4], retention: true, email: false },
};
export const RATE_LABELS = { 0: 'No facturable', 1: 'ITBIS 18 %', 2: 'ITBIS 16 %', 3: 'ITBIS 0 %', 4: 'Exento' };
export function amountOf(text) {
    const t = text.trim().replace(/,/g, '');
    if (t === '' || !/^\d+(\.\d+)?$/.test(t))
        return null;
    return parseDecimal(t) ?? null;
}
export function compute(lines) {
    const computed = lines.map((l) => {
        const q = amountOf(l.quantity);
        const p = amountOf(l.price);
        const d = l.discount.trim() === '' ? undefined : amountOf(l.discount);
        return { monto: q === null || p === null || d === null ? null : lineMonto(q, p, d) };
    });
    const complete = computed.flatMap((c, i) => (c.monto === null ? [] : [{ indicator: lines[i].indicator, amount: c.monto }]));
    return { lines: computed, totals: documentTotals(complete) };
}
const money = (d) => formatDec(d, 2);
const plain = (text) => text.trim().replace(/,/g, '');
function creditNoteIndicator(fechaModificado, fechaEmision) {
    const day = (s) => {
        const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(s);
        return m === null ? Number.NaN : Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
    };
    const days = (day(fechaEmision) - day(fechaModificado)) / 86_400_000;
    return days > 30 ? 1 : 0;
}
export function invoiceBody(input) {
    const form = TYPE_FORMS[input.tipo];
    const { lines: computed, totals } = compute(input.lines);
    const idDoc = { TipoeCF: input.tipo };
    if (ECF_TYPES[input.tipo].sequenceExpires && input.vencimientoSecuencia !== '')
        idDoc.FechaVencimientoSecuencia = input.vencimientoSecuencia;
    if (input.tipo === 34 && input.reference !== null)
        idDoc.IndicadorNotaCredito = creditNoteIndicator(input.reference.fecha, input.fechaEmision);
    if (form.gravadoIndicator)
        idDoc.IndicadorMontoGravado = 0;
    if (form.income)
        idDoc.TipoIngresos = input.tipoIngresos;
    idDoc.TipoPago = Number(input.tipoPago);
    if (input.fechaLimitePago !== '' && input.tipo !== 43)
        idDoc.FechaLimitePago = input.fechaLimitePago;
    if (form.payment === 'full') {
        if (input.terminoPago.trim() !== '')
            idDoc.TerminoPago = input.terminoPago.trim();
        if (input.formaPago !== '')
            idDoc.TablaFormasPago = { FormaDePago: [{ FormaPago: Number(input.formaPago), MontoPago: money(totals.total) }] };
    }
    const buyer = {};
    const id = input.buyer.id.trim();
    if (form.buyer === 'foreign') {
        if (id !== '')
            buyer.IdentificadorExtranjero = id;
    }
    else if (form.buyer !== 'none' && id !== '') {
        buyer.RNCComprador = id;
    }
    if (form.buyer !== 'none') {
        if (input.buyer.name.trim() !== '')
            buyer.RazonSocialComprador = input.buyer.name.trim();
        if (form.email && input.buyer.email.trim() !== '')
            buyer.CorreoComprador = input.buyer.email.trim();
    }
    const totales = {};
    if (totals.gravadoTotal !== null)
        totales.MontoGravadoTotal = money(totals.gravadoTotal);
    for (const r of totals.byRate)
        totales[`MontoGravadoI${r.indicator}`] = money(r.base);
    if (totals.exento !== null)
        totales.MontoExento = money(totals.exento);
    for (const r of totals.byRate)
        totales[`ITBIS${r.indicator}`] = Number(r.rate);
    if (totals.totalItbis !== null)
        totales.TotalITBIS = money(totals.totalItbis);
    for (const r of totals.byRate)
        totales[`TotalITBIS${r.indicator}`] = money(r.itbis);
    totales.MontoTotal = money(totals.total);
    const items = input.lines.map((l, i) => {
        const monto = computed[i]?.monto;
        const discount = l.discount.trim() === '' ? null : amountOf(l.discount);
        const item = {
            NumeroLinea: i + 1,
            IndicadorFacturacion: l.indicator,
            ...(form.retention ? { Retencion: { IndicadorAgenteRetencionoPercepcion: 1 } } : {}),
            NombreItem: l.description.trim(),
            IndicadorBienoServicio: Number(l.kind),
            CantidadItem: plain(l.quantity),
            PrecioUnitarioItem: plain(l.price),
        };
        if (discount !== null && compare(discount, ZERO) !== 0) {
            item.DescuentoMonto = money(discount);
            item.TablaSubDescuento = { SubDescuento: [{ TipoSubDescuento: '$', MontoSubDescuento: money(discount) }] };
        }
        item.MontoItem = monto === null || monto === undefined ? '' : money(monto);
        return item;
    });
    const ecf = {
        Encabezado: {
            Version: '1.0',
            IdDoc: idDoc,
            Emisor: { ...input.emisor, FechaEmision: input.fechaEmision },
            ...(Object.keys(buyer).length === 0 && !COMPRADOR_REQUIRED.has(input.tipo) ? {} : { Comprador: buyer }),
            Totales: totales,
        },
        DetallesItems: { Item: items },
    };
    if (input.reference !== null && ECF_TYPES[input.tipo].requiresReference) {
        ecf.InformacionReferencia = {
            NCFModificado: input.reference.encf.trim().toUpperCase(),
            FechaNCFModificado: input.reference.fecha,
            CodigoModificacion: Number(input.reference.codigo),
            ...(input.reference.razon.trim() === '' ? {} : { RazonModificacion: input.reference.razon.trim() }),
        };
    }
    return { ECF: ecf };
}
export function dominicanToday(now = new Date()) {
    const d = new Date(now.getTime() - 4 * 3_600_000);
    return `${String(d.getUTCDate()).padStart(2, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${d.getUTCFullYear()}`;
}
export function dgiiDay(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
    return m === null ? iso : `${m[3]}-${m[2]}-${m[1]}`;
}
export function isoDay(dgii) {
    const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(dgii);
    return m === null ? '' : `${m[3]}-${m[2]}-${m[1]}`;
}
