import { ECF_TYPES, type EcfTipo } from '../../ecf/ecf-types.ts';
import type { Indicator } from '../../ecf/totals.ts';
import type { PageContext } from './context.ts';
import { h, select } from './dom.ts';
import {
  compute, dgiiDay, dominicanToday, invoiceBody, isoDay, MAIN_TIPOS, OTHER_TIPOS, TYPE_FORMS, type InvoiceInput,
} from './invoice-body.ts';
import { buyerFields } from './invoice-buyer.ts';
import { input, slot, type Slot } from './invoice-fields.ts';
import { linesEditor } from './invoice-lines.ts';
import { wireSubmit } from './invoice-submit.ts';
import { totalsView } from './invoice-totals.ts';
import { TIPOS } from './labels.ts';
import type { Account, DocumentDetail, DocumentSummary, Page } from './types.ts';

// "Nueva factura": issue from the dashboard what an ERP issues through the API. The totals are
// computed as the person types by src/ecf/totals.ts, the module the server's validation uses;
// Emitir posts the body to POST /{env}/documentos-ecf (invoice-submit.ts), then opens the new
// document. A credit or debit note starts from a document's page (?tipo=34&ref=<internalTrackId>),
// the reference filled in. The buyer, the lines and the totals are invoice-buyer.ts,
// invoice-lines.ts and invoice-totals.ts; this page lays the form out and keeps them on one type.

const PAYMENT_TYPES = [['1', 'Contado'], ['2', 'Crédito'], ['3', 'Gratuito']] as const;
const PAYMENT_FORMS = [
  ['', '—'], ['1', 'Efectivo'], ['2', 'Cheque, transferencia o depósito'], ['3', 'Tarjeta de débito o crédito'], ['4', 'Venta a crédito'],
  ['5', 'Bonos o certificados de regalo'], ['6', 'Permuta'], ['7', 'Nota de crédito'], ['8', 'Otras formas de pago'],
] as const;
const INCOME_TYPES = [
  ['01', 'Ingresos por operaciones (no financieros)'], ['02', 'Ingresos financieros'], ['03', 'Ingresos extraordinarios'],
  ['04', 'Ingresos por arrendamientos'], ['05', 'Ingresos por venta de activo depreciable'], ['06', 'Otros ingresos'],
] as const;
const MODIFICATION_CODES = [
  ['1', 'Anula el documento'], ['2', 'Corrige texto'], ['3', 'Corrige montos'], ['4', 'Reemplaza un NCF emitido en contingencia'], ['5', 'Referencia una factura de consumo'],
] as const;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** The issuer's part of the newest document the tenant issued here (address, phones…), or its account's name and RNC. */
async function issuerOf(ctx: PageContext, account: Account): Promise<Json> {
  try {
    const list = await ctx.api.get<Page<DocumentSummary>>(`/${ctx.env}/documentos-ecf?pageSize=1`, ctx.signal);
    const last = list.items[0];
    if (last !== undefined) {
      const doc = await ctx.api.get<DocumentDetail>(`/${ctx.env}/documentos-ecf/${encodeURIComponent(last.internalTrackId)}`, ctx.signal);
      const emisor = { ...obj(obj(obj(doc.document.ECF).Encabezado).Emisor) };
      delete emisor.FechaEmision;
      if (str(emisor.RNCEmisor) === account.tenant.rnc) return emisor;
    }
  } catch (err) {
    if (ctx.signal.aborted) throw err;
  }
  return { RNCEmisor: account.tenant.rnc, RazonSocialEmisor: account.tenant.name };
}

export async function invoicePage(ctx: PageContext): Promise<void> {
  const requested = Number(ctx.query.get('tipo') ?? '31');
  let tipo: EcfTipo = ([...MAIN_TIPOS, ...OTHER_TIPOS] as number[]).includes(requested) ? (requested as EcfTipo) : 31;
  const refId = ctx.query.get('ref');
  const [account, referenced] = await Promise.all([
    ctx.api.get<Account>('/api/account', ctx.signal),
    refId === null ? Promise.resolve(null) : ctx.api.get<DocumentDetail>(`/${ctx.env}/documentos-ecf/${encodeURIComponent(refId)}`, ctx.signal),
  ]);
  const issuer = await issuerOf(ctx, account);
  if (referenced !== null) ctx.heading.textContent = `${tipo === 33 ? 'Nota de débito' : 'Nota de crédito'} de ${referenced.encf}`;

  // Type
  const radios = new Map<EcfTipo, HTMLInputElement>();
  const radio = (t: EcfTipo): HTMLElement => {
    const r = h('input', { type: 'radio', name: 'tipo', value: String(t), id: `tipo-${t}`, checked: t === tipo });
    radios.set(t, r);
    return h('div', { class: 'choice' }, r, h('label', { for: r.id }, `${t} · ${TIPOS[t]}`));
  };
  const others = h('details', { class: 'others', open: (OTHER_TIPOS as readonly number[]).includes(tipo) },
    h('summary', null, 'Otros tipos'), h('div', { class: 'choices' }, OTHER_TIPOS.map(radio)));
  const typeSection = h('section', { class: 'card', 'aria-labelledby': 'inv-type' },
    h('h2', { id: 'inv-type' }, 'Tipo de comprobante'),
    h('fieldset', { class: 'plain' }, h('legend', { class: 'visually-hidden' }, 'Tipo de comprobante'),
      h('div', { class: 'choices' }, MAIN_TIPOS.map(radio)), others));

  // Buyer
  const buyer = buyerFields(ctx, () => tipo);

  // Reference (notes)
  const refEncf = slot('NCF modificado', input({ name: 'ncfModificado', maxlength: 13, class: 'mono', autocomplete: 'off' }));
  const refDate = slot('Fecha del NCF modificado', h('input', { type: 'date', name: 'fechaNcfModificado' }));
  const refCode = slot('Código de modificación', select('codigoModificacion', MODIFICATION_CODES, '3'));
  const refReason = slot('Razón de la modificación', input({ name: 'razonModificacion', maxlength: 90 }));
  const refSection = h('section', { class: 'card', 'aria-labelledby': 'inv-ref' },
    h('h2', { id: 'inv-ref' }, 'Documento que modifica'),
    h('div', { class: 'form-grid' }, refEncf.wrap, refDate.wrap, refCode.wrap, refReason.wrap));

  // Lines
  const editor = linesEditor(ctx, () => tipo, () => refresh());

  // Payment and sequence
  const income = slot('Tipo de ingresos', select('tipoIngresos', INCOME_TYPES, '01'));
  const payType = slot('Tipo de pago', select('tipoPago', PAYMENT_TYPES, '1'));
  const payTerm = slot('Término de pago', input({ name: 'terminoPago', maxlength: 15, placeholder: '30 días' }), 'Hasta 15 caracteres.');
  const payForm = slot('Forma de pago', select('formaPago', PAYMENT_FORMS, '1'));
  const payLimit = slot('Fecha límite de pago', h('input', { type: 'date', name: 'fechaLimitePago' }));
  const expiry = slot('Vencimiento de la secuencia', h('input', { type: 'date', name: 'fechaVencimientoSecuencia' }), 'Déjelo vacío si registró la secuencia de este tipo en Secuencias.');
  const paySection = h('section', { class: 'card', 'aria-labelledby': 'inv-pay' },
    h('h2', { id: 'inv-pay' }, 'Pago y condiciones'),
    h('div', { class: 'form-grid' }, income.wrap, payType.wrap, payForm.wrap, payTerm.wrap, payLimit.wrap, expiry.wrap));

  // Issuer
  const issuerName = slot('Razón social del emisor', input({ name: 'razonSocialEmisor', maxlength: 150, value: str(issuer.RazonSocialEmisor) }));
  const issuerAddress = slot('Dirección del emisor', input({ name: 'direccionEmisor', maxlength: 100, value: str(issuer.DireccionEmisor) }));
  const issuerSection = h('details', { class: 'card issuer', open: str(issuer.DireccionEmisor) === '' },
    h('summary', null, h('h2', { class: 'inline' }, 'Emisor'), ' ', h('span', { class: 'aside' }, `${str(issuer.RazonSocialEmisor)} · RNC ${account.tenant.rnc}`)),
    h('p', { class: 'hint' }, 'Se toman del último documento emitido; cámbielos aquí si hace falta.'),
    h('div', { class: 'form-grid' }, issuerName.wrap, issuerAddress.wrap));

  // Totals
  const totals = totalsView();

  const status = h('div', { class: 'invoice-status', 'aria-live': 'polite' });
  const preview = h('button', { type: 'button', class: 'secondary', 'data-action': 'preview' }, 'Vista previa (PDF)');
  const emit = h('button', { type: 'submit', 'data-action': 'emit' }, 'Emitir');
  const form = h('form', { class: 'stack invoice', novalidate: true, 'aria-labelledby': 'page-title' },
    typeSection, buyer.section, refSection, editor.section, paySection, issuerSection, totals.section,
    h('div', { class: 'actions' }, preview, emit), status);
  ctx.root.append(form);

  const slots = (): [string, Slot][] => {
    const fixed: [string, Slot][] = [
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

  function refresh(): void {
    const { lines, totals: computed } = compute(editor.inputs());
    editor.showAmounts(lines);
    totals.show(computed, tipo);
  }

  const syncType = (): void => {
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
      if (!r.checked) return;
      tipo = t;
      syncType();
    });
  }

  // Prefill: a note from the document it modifies, otherwise one empty line.
  if (referenced !== null) {
    const ecf = obj(referenced.document.ECF);
    const comprador = obj(obj(ecf.Encabezado).Comprador);
    buyer.fill({ id: str(comprador.RNCComprador), name: str(comprador.RazonSocialComprador), email: str(comprador.CorreoComprador) });
    refEncf.control.value = referenced.encf;
    refDate.control.value = isoDay(str(obj(obj(ecf.Encabezado).Emisor).FechaEmision));
    const raw = obj(ecf.DetallesItems).Item;
    for (const item of (Array.isArray(raw) ? raw : [raw]).map(obj)) {
      const indicator = Number(str(item.IndicadorFacturacion)) as Indicator;
      editor.add({
        description: str(item.NombreItem), quantity: str(item.CantidadItem), price: str(item.PrecioUnitarioItem), indicator,
        kind: str(item.IndicadorBienoServicio) === '2' ? '2' : '1', discount: str(item.DescuentoMonto),
      });
    }
  }
  if (editor.count() === 0) editor.add();
  syncType();

  const readInput = (): InvoiceInput => ({
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
      // Both run: every field wrong is marked, not only the first.
      const buyerOk = buyer.precheck();
      const linesOk = editor.checkDescriptions();
      return buyerOk && linesOk;
    },
    body: () => invoiceBody(readInput()),
  });
}
