// Built from src/dashboard/client/page-invoice.ts by `npm run build:dashboard`: edit that file, not this one.
import { ECF_TYPES } from "./ecf-types.js";
import { h, select } from "./dom.js";
import { compute, dgiiDay, dominicanToday, invoiceBody, isoDay, MAIN_TIPOS, OTHER_TIPOS, TYPE_FORMS, } from "./invoice-body.js";
import { buyerFields } from "./invoice-buyer.js";
import { input, slot } from "./invoice-fields.js";
import { linesEditor } from "./invoice-lines.js";
import { wireSubmit } from "./invoice-submit.js";
import { totalsView } from "./invoice-totals.js";
import { TIPOS } from "./labels.js";
const PAYMENT_TYPES = [['1', 'Contado'], ['2', 'Crédito'], ['3', 'Gratuito']];
const PAYMENT_FORMS = [
    ['', '—'], ['1', 'Efectivo'], ['2', 'Cheque, transferencia o depósito'], ['3', 'Tarjeta de débito o crédito'], ['4', 'Venta a crédito'],
    ['5', 'Bonos o certificados de regalo'], ['6', 'Permuta'], ['7', 'Nota de crédito'], ['8', 'Otras formas de pago'],
];
const INCOME_TYPES = [
    ['01', 'Ingresos por operaciones (no financieros)'], ['02', 'Ingresos financieros'], ['03', 'Ingresos extraordinarios'],
    ['04', 'Ingresos por arrendamientos'], ['05', 'Ingresos por venta de activo depreciable'], ['06', 'Otros ingresos'],
];
const MODIFICATION_CODES = [
    ['1', 'Anula el documento'], ['2', 'Corrige texto'], ['3', 'Corrige montos'], ['4', 'Reemplaza un NCF emitido en contingencia'], ['5', 'Referencia una factura de consumo'],
];
const obj = (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {});
const str = (v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
async function issuerOf(ctx, account) {
    try {
        const list = await ctx.api.get(`/${ctx.env}/documentos-ecf?pageSize=1`, ctx.signal);
        const last = list.items[0];
        if (last !== undefined) {
            const doc = await ctx.api.get(`/${ctx.env}/documentos-ecf/${encodeURIComponent(last.internalTrackId)}`, ctx.signal);
            const emisor = { ...obj(obj(obj(doc.document.ECF).Encabezado).Emisor) };
            delete emisor.FechaEmision;
            if (str(emisor.RNCEmisor) === account.tenant.rnc)
                return emisor;
        }
    }
    catch (err) {
        if (ctx.signal.aborted)
            throw err;
    }
    return { RNCEmisor: account.tenant.rnc, RazonSocialEmisor: account.tenant.name };
}
export async function invoicePage(ctx) {
    const requested = Number(ctx.query.get('tipo') ?? '31');
    let tipo = [...MAIN_TIPOS, ...OTHER_TIPOS].includes(requested) ? requested : 31;
    const refId = ctx.query.get('ref');
    const [account, referenced] = await Promise.all([
        ctx.api.get('/api/account', ctx.signal),
        refId === null ? Promise.resolve(null) : ctx.api.get(`/${ctx.env}/documentos-ecf/${encodeURIComponent(refId)}`, ctx.signal),
    ]);
    const issuer = await issuerOf(ctx, account);
    if (referenced !== null)
        ctx.heading.textContent = `${tipo === 33 ? 'Nota de débito' : 'Nota de crédito'} de ${referenced.encf}`;
    const radios = new Map();
    const radio = (t) => {
        const r = h('input', { type: 'radio', name: 'tipo', value: String(t), id: `tipo-${t}`, checked: t === tipo });
        radios.set(t, r);
        return h('div', { class: 'choice' }, r, h('label', { for: r.id }, `${t} · ${TIPOS[t]}`));
    };
    const others = h('details', { class: 'others', open: OTHER_TIPOS.includes(tipo) }, h('summary', null, 'Otros tipos'), h('div', { class: 'choices' }, OTHER_TIPOS.map(radio)));
    const typeSection = h('section', { class: 'card', 'aria-labelledby': 'inv-type' }, h('h2', { id: 'inv-type' }, 'Tipo de comprobante'), h('fieldset', { class: 'plain' }, h('legend', { class: 'visually-hidden' }, 'Tipo de comprobante'), h('div', { class: 'choices' }, MAIN_TIPOS.map(radio)), others));
    const buyer = buyerFields(ctx, () => tipo);
    const refEncf = slot('NCF modificado', input({ name: 'ncfModificado', maxlength: 13, class: 'mono', autocomplete: 'off' }));
    const refDate = slot('Fecha del NCF modificado', h('input', { type: 'date', name: 'fechaNcfModificado' }));
    const refCode = slot('Código de modificación', select('codigoModificacion', MODIFICATION_CODES, '3'));
    const refReason = slot('Razón de la modificación', input({ name: 'razonModificacion', maxlength: 90 }));
    const refSection = h('section', { class: 'card', 'aria-labelledby': 'inv-ref' }, h('h2', { id: 'inv-ref' }, 'Documento que modifica'), h('div', { class: 'form-grid' }, refEncf.wrap, refDate.wrap, refCode.wrap, refReason.wrap));
    const editor = linesEditor(ctx, () => tipo, () => refresh());
    const income = slot('Tipo de ingresos', select('tipoIngresos', INCOME_TYPES, '01'));
    const payType = slot('Tipo de pago', select('tipoPago', PAYMENT_TYPES, '1'));
    const payTerm = slot('Término de pago', input({ name: 'terminoPago', maxlength: 15, placeholder: '30 días' }), 'Hasta 15 caracteres.');
    const payForm = slot('Forma de pago', select('formaPago', PAYMENT_FORMS, '1'));
    const payLimit = slot('Fecha límite de pago', h('input', { type: 'date', name: 'fechaLimitePago' }));
    const expiry = slot('Vencimiento de la secuencia', h('input', { type: 'date', name: 'fechaVencimientoSecuencia' }), 'Déjelo vacío si registró la secuencia de este tipo en Secuencias.');
    const paySection = h('section', { class: 'card', 'aria-labelledby': 'inv-pay' }, h('h2', { id: 'inv-pay' }, 'Pago y condiciones'), h('div', { class: 'form-grid' }, income.wrap, payType.wrap, payForm.wrap, payTerm.wrap, payLimit.wrap, expiry.wrap));
    const issuerName = slot('Razón social del emisor', input({ name: 'razonSocialEmisor', maxlength: 150, value: str(issuer.RazonSocialEmisor) }));
    const issuerAddress = slot('Dirección del emisor', input({ name: 'direccionEmisor', maxlength: 100, value: str(issuer.DireccionEmisor) }));
    const issuerSection = h('details', { class: 'card issuer', open: str(issuer.DireccionEmisor) === '' }, h('summary', null, h('h2', { class: 'inline' }, 'Emisor'), ' ', h('span', { class: 'aside' }, `${str(issuer.RazonSocialEmisor)} · RNC ${account.tenant.rnc}`)), h('p', { class: 'hint' }, 'Se toman del último documento emitido; cámbielos aquí si hace falta.'), h('div', { class: 'form-grid' }, issuerName.wrap, issuerAddress.wrap));
    const totals = totalsView();
    const status = h('div', { class: 'invoice-status', 'aria-live': 'polite' });
    const preview = h('button', { type: 'button', class: 'secondary', 'data-action': 'preview' }, 'Vista previa (PDF)');
    const emit = h('button', { type: 'submit', 'data-action': 'emit' }, 'Emitir');
    const form = h('form', { class: 'stack invoice', novalidate: true, 'aria-labelledby': 'page-title' }, typeSection, buyer.section, refSection, editor.section, paySection, issuerSection, totals.section, h('div', { class: 'actions' }, preview, emit), status);
    ctx.root.append(form);
    const slots = () => {
        const fixed = [
            ...buyer.slots(),
            ['ECF.InformacionReferencia.NCFModificado', refEncf], ['ECF.InformacionReferencia.FechaNCFModificado', refDate],
            ['ECF.InformacionReferencia.CodigoModificacion', refCode], ['ECF.InformacionReferencia.RazonModificacion', refReason],
            ['ECF.InformacionReferencia', refEncf],
            ['ECF.Encabezado.IdDoc.TipoIngresos', income], ['ECF.Encabezado.IdDoc.TipoPago', payType], ['ECF.Encabezado.IdDoc.TerminoPago', payTerm],
            ['ECF.Encabezado.IdDoc.TablaFormasPago', payForm], ['ECF.Encabezado.IdDoc.FechaLimitePago', payLimit],
            ['ECF.Encabezado.IdDoc.FechaVencimientoSecuencia', expiry],
            ['ECF.Encabezado.Emisor.RazonSocialEmisor', issuerName], ['ECF.Encabezado.Emisor.DireccionEmisor', issuerAddress],
        ];
        return [...fixed, ...editor.slots()];
    };
    function refresh() {
        const { lines, totals: computed } = compute(editor.inputs());
        editor.showAmounts(lines);
        totals.show(computed, tipo);
    }
    const syncType = () => {
        const tf = TYPE_FORMS[tipo];
        const info = ECF_TYPES[tipo];
        buyer.sync();
        refSection.hidden = !info.requiresReference;
        income.wrap.hidden = !tf.income;
        payForm.wrap.hidden = tf.payment !== 'full';
        payTerm.wrap.hidden = tf.payment !== 'full';
        payLimit.wrap.hidden = tipo === 43;
        expiry.wrap.hidden = !info.sequenceExpires;
        editor.syncRates();
        buyer.check();
        refresh();
    };
    for (const [t, r] of radios) {
        r.addEventListener('change', () => {
            if (!r.checked)
                return;
            tipo = t;
            syncType();
        });
    }
    if (referenced !== null) {
        const ecf = obj(referenced.document.ECF);
        const comprador = obj(obj(ecf.Encabezado).Comprador);
        buyer.fill({ id: str(comprador.RNCComprador), name: str(comprador.RazonSocialComprador), email: str(comprador.CorreoComprador) });
        refEncf.control.value = referenced.encf;
        refDate.control.value = isoDay(str(obj(obj(ecf.Encabezado).Emisor).FechaEmision));
        const raw = obj(ecf.DetallesItems).Item;
        for (const item of (Array.isArray(raw) ? raw : [raw]).map(obj)) {
            const indicator = Number(str(item.IndicadorFacturacion));
            editor.add({
                description: str(item.NombreItem), quantity: str(item.CantidadItem), price: str(item.PrecioUnitarioItem), indicator,
                kind: str(item.IndicadorBienoServicio) === '2' ? '2' : '1', discount: str(item.DescuentoMonto),
            });
        }
    }
    if (editor.count() === 0)
        editor.add();
    syncType();
    const readInput = () => ({
        tipo,
        emisor: { ...issuer, RazonSocialEmisor: issuerName.control.value.trim(), DireccionEmisor: issuerAddress.control.value.trim() },
        fechaEmision: dominicanToday(),
        vencimientoSecuencia: dgiiDay(expiry.control.value),
        buyer: buyer.values(),
        tipoIngresos: income.control.value,
        tipoPago: payType.control.value,
        terminoPago: payTerm.control.value,
        formaPago: payForm.control.value,
        fechaLimitePago: dgiiDay(payLimit.control.value),
        reference: ECF_TYPES[tipo].requiresReference
            ? { encf: refEncf.control.value, fecha: dgiiDay(refDate.control.value), codigo: refCode.control.value, razon: refReason.control.value }
            : null,
        lines: editor.inputs(),
    });
    wireSubmit(ctx, {
        form, emit, preview, status, slots,
        validate: () => {
            const buyerOk = buyer.precheck();
            const linesOk = editor.checkDescriptions();
            return buyerOk && linesOk;
        },
        body: () => invoiceBody(readInput()),
    });
}
