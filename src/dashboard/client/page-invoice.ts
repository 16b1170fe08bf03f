import { formatDec, type Dec } from '../../ecf/decimal.ts';
import { ECF_TYPES, type EcfTipo } from '../../ecf/ecf-types.ts';
import { checkTaxId } from '../../ecf/tax-id.ts';
import type { Indicator } from '../../ecf/totals.ts';
import { ApiError } from './api.ts';
import { PATHS, type PageContext } from './context.ts';
import { busy, errorBox, h, money, select, uid } from './dom.ts';
import { detailSentence } from './errors.ts';
import {
  compute, dgiiDay, dominicanToday, invoiceBody, isoDay, MAIN_TIPOS, OTHER_TIPOS, RATE_LABELS, TYPE_FORMS,
  type InvoiceInput, type LineInput,
} from './invoice-body.ts';
import { buyerLookup, customerSaver, ItemCatalog } from './invoice-saved.ts';
import { TIPOS } from './labels.ts';
import type { Account, DocumentDetail, DocumentSummary, Page } from './types.ts';

// "Nueva factura": issue from the dashboard what an ERP issues through the API. The totals are
// computed as the person types by src/ecf/totals.ts, the module the server's validation uses;
// Emitir posts the body to POST /{env}/documentos-ecf with an Idempotency-Key tied to the body
// (a double click replays the one emission), then opens the new document. A credit or debit
// note starts from a document's page (?tipo=34&ref=<internalTrackId>), the reference filled in.

/** A labelled control with a slot under it for what is wrong with it (the server's 422 details included). */
export interface Slot {
  label: string;
  wrap: HTMLElement;
  control: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
}

export function slot(label: string, control: HTMLInputElement | HTMLSelectElement, hint?: string): Slot {
  control.id ||= uid('inv');
  const error = h('small', { id: `${control.id}-error`, class: 'field-error', 'data-error': '' });
  const hintEl = hint === undefined ? null : h('small', { id: `${control.id}-hint`, class: 'hint' }, hint);
  control.setAttribute('aria-describedby', [hintEl?.id, error.id].filter((x) => x !== undefined).join(' '));
  const wrap = h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl, error);
  return { label, wrap, control, error };
}

export function setError(s: Slot, message: Node | string | null): void {
  s.error.replaceChildren(message ?? '');
  if (message === null) s.control.removeAttribute('aria-invalid');
  else s.control.setAttribute('aria-invalid', 'true');
}

const input = (attrs: Record<string, string | number | boolean>): HTMLInputElement => h('input', { type: 'text', ...attrs });

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

interface LineRow {
  el: HTMLElement;
  legend: HTMLElement;
  description: Slot;
  quantity: Slot;
  price: Slot;
  rate: Slot;
  discount: Slot;
  kind: Slot;
  amount: HTMLElement;
}

/** A random Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `panel-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

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
  const buyerId = slot('RNC o cédula del comprador', input({ name: 'rncComprador', inputmode: 'numeric', autocomplete: 'off', maxlength: 20, spellcheck: 'false' }), 'Sin guiones. Se comprueba el dígito verificador de la DGII.');
  const buyerStatus = h('small', { class: 'hint', 'data-field': 'rnc-status', 'aria-live': 'polite' });
  buyerId.wrap.insertBefore(buyerStatus, buyerId.error);
  const buyerName = slot('Nombre o razón social del comprador', input({ name: 'razonSocialComprador', maxlength: 150, autocomplete: 'organization' }));
  const buyerEmail = slot('Correo del comprador', input({ type: 'email', name: 'correoComprador', maxlength: 80, autocomplete: 'email' }));
  const saveCustomer = customerSaver(ctx, () => ({ rnc: buyerId.control.value.trim(), name: buyerName.control.value.trim(), email: buyerEmail.control.value.trim() }));
  const buyerSection = h('section', { class: 'card', 'aria-labelledby': 'inv-buyer' },
    h('h2', { id: 'inv-buyer' }, 'Comprador'),
    h('div', { class: 'form-grid' }, buyerId.wrap, buyerName.wrap, buyerEmail.wrap),
    saveCustomer.element);

  // Reference (notes)
  const refEncf = slot('NCF modificado', input({ name: 'ncfModificado', maxlength: 13, class: 'mono', autocomplete: 'off' }));
  const refDate = slot('Fecha del NCF modificado', h('input', { type: 'date', name: 'fechaNcfModificado' }));
  const refCode = slot('Código de modificación', select('codigoModificacion', MODIFICATION_CODES, '3'));
  const refReason = slot('Razón de la modificación', input({ name: 'razonModificacion', maxlength: 90 }));
  const refSection = h('section', { class: 'card', 'aria-labelledby': 'inv-ref' },
    h('h2', { id: 'inv-ref' }, 'Documento que modifica'),
    h('div', { class: 'form-grid' }, refEncf.wrap, refDate.wrap, refCode.wrap, refReason.wrap));

  // Lines
  const catalog = new ItemCatalog(ctx);
  const rows: LineRow[] = [];
  const lineList = h('div', { class: 'lines', 'data-list': 'invoice-lines' });
  const rateOptions = (): (readonly [string, string])[] => TYPE_FORMS[tipo].rates.map((r) => [String(r), RATE_LABELS[r]] as const);
  const addLine = (values: Partial<LineInput> = {}): LineRow => {
    const rate = select('itbis', rateOptions(), String(values.indicator ?? TYPE_FORMS[tipo].rates[0]));
    const row: LineRow = {
      el: h('fieldset', { class: 'line' }),
      legend: h('legend', null, ''),
      description: slot('Descripción', input({ name: 'descripcion', maxlength: 80, value: values.description ?? '' })),
      quantity: slot('Cantidad', input({ name: 'cantidad', inputmode: 'decimal', value: values.quantity ?? '1', class: 'num' })),
      price: slot('Precio unitario', input({ name: 'precio', inputmode: 'decimal', value: values.price ?? '', class: 'num' })),
      rate: slot('ITBIS', rate),
      discount: slot('Descuento (RD$)', input({ name: 'descuento', inputmode: 'decimal', value: values.discount ?? '', class: 'num' })),
      kind: slot('Bien o servicio', select('bienServicio', [['1', 'Bien'], ['2', 'Servicio']], values.kind ?? '1')),
      amount: h('output', { class: 'amount', 'data-field': 'line-amount' }),
    };
    const remove = h('button', { type: 'button', class: 'secondary small', 'data-action': 'remove-line' }, 'Quitar');
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      row.el.remove();
      refresh();
      (rows[0]?.description.control ?? addButton).focus();
    });
    // A saved item's description fills its price, rate and kind.
    row.description.control.setAttribute('list', catalog.datalist.id);
    row.description.control.addEventListener('change', () => {
      const item = catalog.find(row.description.control.value);
      if (item === undefined) return;
      row.price.control.value = item.price;
      if (TYPE_FORMS[tipo].rates.includes(item.indicator)) row.rate.control.value = String(item.indicator);
      row.kind.control.value = item.kind;
      refresh();
    });
    const pick = catalog.saveButton(() => ({
      description: row.description.control.value.trim(), price: row.price.control.value.trim().replace(/,/g, ''),
      indicator: Number(row.rate.control.value) as Indicator, kind: row.kind.control.value === '2' ? '2' : '1',
    }));
    row.el.append(row.legend,
      h('div', { class: 'line-grid' }, row.description.wrap, row.quantity.wrap, row.price.wrap, row.rate.wrap, row.discount.wrap, row.kind.wrap,
        h('div', { class: 'field' }, h('span', { class: 'label' }, 'Importe'), row.amount)),
      h('div', { class: 'actions' }, pick, remove));
    rows.push(row);
    lineList.append(row.el);
    return row;
  };
  const addButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'add-line' }, 'Agregar línea');
  addButton.addEventListener('click', () => {
    addLine().description.control.focus();
    refresh();
  });
  const linesSection = h('section', { class: 'card', 'aria-labelledby': 'inv-lines' },
    h('h2', { id: 'inv-lines' }, 'Líneas'), h('p', { class: 'hint' }, 'Precios sin ITBIS; el ITBIS se calcula por línea según su tasa.'),
    lineList, catalog.datalist, h('div', { class: 'actions' }, addButton));

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
  const totalsList = h('dl', { class: 'facts totals', 'data-list': 'invoice-totals' });
  const totalsSection = h('section', { class: 'card', 'aria-labelledby': 'inv-totals' }, h('h2', { id: 'inv-totals' }, 'Totales'), totalsList);

  const status = h('div', { class: 'invoice-status', 'aria-live': 'polite' });
  const preview = h('button', { type: 'button', class: 'secondary', 'data-action': 'preview' }, 'Vista previa (PDF)');
  const emit = h('button', { type: 'submit', 'data-action': 'emit' }, 'Emitir');
  const form = h('form', { class: 'stack invoice', novalidate: true, 'aria-labelledby': 'page-title' },
    typeSection, buyerSection, refSection, linesSection, paySection, issuerSection, totalsSection,
    h('div', { class: 'actions' }, preview, emit), status);
  ctx.root.append(form);

  const slots = (): [string, Slot][] => {
    const fixed: [string, Slot][] = [
      ['ECF.Encabezado.Comprador.RNCComprador', buyerId], ['ECF.Encabezado.Comprador.IdentificadorExtranjero', buyerId],
      ['ECF.Encabezado.Comprador.RazonSocialComprador', buyerName], ['ECF.Encabezado.Comprador.CorreoComprador', buyerEmail],
      ['ECF.Encabezado.Comprador', buyerId],
      ['ECF.InformacionReferencia.NCFModificado', refEncf], ['ECF.InformacionReferencia.FechaNCFModificado', refDate],
      ['ECF.InformacionReferencia.CodigoModificacion', refCode], ['ECF.InformacionReferencia.RazonModificacion', refReason],
      ['ECF.InformacionReferencia', refEncf],
      ['ECF.Encabezado.IdDoc.TipoIngresos', income], ['ECF.Encabezado.IdDoc.TipoPago', payType], ['ECF.Encabezado.IdDoc.TerminoPago', payTerm],
      ['ECF.Encabezado.IdDoc.TablaFormasPago', payForm], ['ECF.Encabezado.IdDoc.FechaLimitePago', payLimit],
      ['ECF.Encabezado.IdDoc.FechaVencimientoSecuencia', expiry],
      ['ECF.Encabezado.Emisor.RazonSocialEmisor', issuerName], ['ECF.Encabezado.Emisor.DireccionEmisor', issuerAddress],
    ];
    rows.forEach((r, i) => {
      const at = `ECF.DetallesItems.Item[${i}]`;
      fixed.push([`${at}.NombreItem`, r.description], [`${at}.CantidadItem`, r.quantity], [`${at}.PrecioUnitarioItem`, r.price],
        [`${at}.IndicadorFacturacion`, r.rate], [`${at}.DescuentoMonto`, r.discount], [`${at}.TablaSubDescuento`, r.discount],
        [`${at}.IndicadorBienoServicio`, r.kind], [`${at}.MontoItem`, r.price], [at, r.description]);
    });
    return fixed;
  };
  /** The slot a 422 detail's path names: the longest registered path it starts with. */
  const slotOf = (path: string): { s: Slot; name: string } | null => {
    let best: { key: string; s: Slot } | null = null;
    for (const [key, s] of slots()) {
      const under = path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
      if (under && (best === null || key.length > best.key.length)) best = { key, s };
    }
    if (best === null) return null;
    const line = /^ECF\.DetallesItems\.Item\[(\d+)\]/.exec(best.key);
    return { s: best.s, name: line === null ? best.s.label : `Línea ${Number(line[1]) + 1} · ${best.s.label}` };
  };
  const clearErrors = (): void => {
    for (const [, s] of slots()) setError(s, null);
  };

  const lineInputs = (): LineInput[] => rows.map((r) => ({
    description: r.description.control.value,
    quantity: r.quantity.control.value,
    price: r.price.control.value,
    indicator: Number(r.rate.control.value) as Indicator,
    kind: r.kind.control.value === '2' ? '2' : '1',
    discount: r.discount.control.value,
  }));

  const fact = (label: string, field: string, value: Dec | null, strong = false): HTMLElement[] => value === null ? [] : [
    h('dt', null, label),
    h('dd', { 'data-field': field, 'data-value': formatDec(value) }, strong ? h('strong', null, money(formatDec(value))) : money(formatDec(value))),
  ];

  function refresh(): void {
    const tf = TYPE_FORMS[tipo];
    const { lines, totals } = compute(lineInputs());
    rows.forEach((r, i) => {
      r.legend.textContent = `Línea ${i + 1}`;
      const m = lines[i]?.monto ?? null;
      r.amount.textContent = m === null ? '—' : money(formatDec(m));
      r.amount.setAttribute('data-value', m === null ? '' : formatDec(m));
    });
    totalsList.replaceChildren(
      ...totals.byRate.flatMap((r) => [
        ...fact(`Gravado ${RATE_LABELS[r.indicator].replace('ITBIS ', '')}`, `gravado-${r.indicator}`, r.base),
        ...fact(RATE_LABELS[r.indicator], `itbis-${r.indicator}`, r.itbis),
      ]),
      ...fact('Exento', 'exento', totals.exento),
      ...fact('ITBIS total', 'itbis-total', totals.totalItbis ?? (tf.rates.some((x) => x !== 4) ? { units: 0, scale: 2 } : null)),
      ...fact('Total', 'total', totals.total, true),
    );
  }

  const syncType = (): void => {
    const tf = TYPE_FORMS[tipo];
    const info = ECF_TYPES[tipo];
    buyerSection.hidden = tf.buyer === 'none';
    const buyerLabel = buyerId.wrap.querySelector('label');
    if (buyerLabel !== null) buyerLabel.textContent = tf.buyer === 'foreign' ? 'Identificador extranjero del comprador' : 'RNC o cédula del comprador';
    buyerId.control.setAttribute('inputmode', tf.buyer === 'foreign' ? 'text' : 'numeric');
    buyerEmail.wrap.hidden = !tf.email;
    refSection.hidden = !info.requiresReference;
    income.wrap.hidden = !tf.income;
    payForm.wrap.hidden = tf.payment !== 'full';
    payTerm.wrap.hidden = tf.payment !== 'full';
    payLimit.wrap.hidden = tipo === 43;
    expiry.wrap.hidden = !info.sequenceExpires;
    for (const r of rows) {
      const current = Number(r.rate.control.value) as Indicator;
      const options = rateOptions();
      (r.rate.control as HTMLSelectElement).replaceChildren(...options.map(([value, label]) => h('option', { value }, label)));
      r.rate.control.value = tf.rates.includes(current) ? String(current) : String(tf.rates[0]);
    }
    checkBuyer();
    refresh();
  };

  const lookup = buyerLookup(ctx, (name) => {
    // Only an empty name, or one filled by an earlier lookup, is replaced.
    if (buyerName.control.value.trim() === '' || buyerName.control.dataset.filled === 'true') {
      buyerName.control.value = name;
      buyerName.control.dataset.filled = 'true';
      buyerStatus.textContent = `RNC válido: ${name}.`;
    }
  }, (c) => {
    if (buyerEmail.control.value.trim() === '' && c.email !== null) buyerEmail.control.value = c.email;
  });
  buyerName.control.addEventListener('input', () => delete buyerName.control.dataset.filled);

  /** The buyer's id as typed, and whether it may be sent (its check digit, for an RNC or cédula). */
  function checkBuyer(): boolean {
    const tf = TYPE_FORMS[tipo];
    const raw = buyerId.control.value.replace(/[\s-]/g, '');
    setError(buyerId, null);
    buyerStatus.textContent = '';
    if (tf.buyer === 'none' || tf.buyer === 'foreign' || raw === '') return true;
    const check = checkTaxId(raw);
    if (check.valid) {
      buyerStatus.textContent = check.kind === 'rnc' ? 'RNC válido.' : 'Cédula válida.';
      if (check.kind === 'rnc') lookup(raw);
      return true;
    }
    if (check.kind === 'format') {
      if (/^\d{1,10}$/.test(raw)) buyerStatus.textContent = 'Escriba 9 dígitos (RNC) u 11 (cédula).';
      else setError(buyerId, 'Debe tener 9 dígitos (RNC) u 11 (cédula), solo números.');
      return false;
    }
    setError(buyerId, `El dígito verificador no corresponde a ${check.kind === 'rnc' ? 'un RNC' : 'una cédula'}: revise el número.`);
    return false;
  }
  buyerId.control.addEventListener('input', () => checkBuyer());

  for (const [t, r] of radios) {
    r.addEventListener('change', () => {
      if (!r.checked) return;
      tipo = t;
      syncType();
    });
  }
  lineList.addEventListener('input', () => refresh());
  lineList.addEventListener('change', () => refresh());

  // Prefill: a note from the document it modifies, otherwise one empty line.
  if (referenced !== null) {
    const ecf = obj(referenced.document.ECF);
    const buyer = obj(obj(ecf.Encabezado).Comprador);
    buyerId.control.value = str(buyer.RNCComprador);
    buyerName.control.value = str(buyer.RazonSocialComprador);
    buyerEmail.control.value = str(buyer.CorreoComprador);
    refEncf.control.value = referenced.encf;
    refDate.control.value = isoDay(str(obj(obj(ecf.Encabezado).Emisor).FechaEmision));
    const raw = obj(ecf.DetallesItems).Item;
    for (const item of (Array.isArray(raw) ? raw : [raw]).map(obj)) {
      const indicator = Number(str(item.IndicadorFacturacion)) as Indicator;
      addLine({
        description: str(item.NombreItem), quantity: str(item.CantidadItem), price: str(item.PrecioUnitarioItem), indicator,
        kind: str(item.IndicadorBienoServicio) === '2' ? '2' : '1', discount: str(item.DescuentoMonto),
      });
    }
  }
  if (rows.length === 0) addLine();
  syncType();

  const readInput = (): InvoiceInput => ({
    tipo,
    emisor: { ...issuer, RazonSocialEmisor: issuerName.control.value.trim(), DireccionEmisor: issuerAddress.control.value.trim() },
    fechaEmision: dominicanToday(),
    vencimientoSecuencia: dgiiDay(expiry.control.value),
    buyer: { id: buyerId.control.value.replace(/[\s-]/g, ''), name: buyerName.control.value, email: buyerEmail.control.value },
    tipoIngresos: income.control.value,
    tipoPago: payType.control.value,
    terminoPago: payTerm.control.value,
    formaPago: payForm.control.value,
    fechaLimitePago: dgiiDay(payLimit.control.value),
    reference: ECF_TYPES[tipo].requiresReference
      ? { encf: refEncf.control.value, fecha: dgiiDay(refDate.control.value), codigo: refCode.control.value, razon: refReason.control.value }
      : null,
    lines: lineInputs(),
  });

  /** What the page can tell before asking the server; false after marking the fields. */
  const precheck = (): boolean => {
    clearErrors();
    let ok = checkBuyer();
    if (TYPE_FORMS[tipo].buyer === 'rnc-required' && buyerId.control.value.trim() === '') {
      setError(buyerId, `Es obligatorio para el tipo ${tipo}.`);
      ok = false;
    }
    for (const r of rows) {
      if (r.description.control.value.trim() === '') {
        setError(r.description, 'Es obligatoria.');
        ok = false;
      }
    }
    if (!ok) {
      const first = form.querySelector<HTMLElement>('[aria-invalid="true"]') ?? null;
      first?.focus();
    }
    return ok;
  };

  const showServerError = (err: unknown): void => {
    if (err instanceof ApiError) {
      const names: Record<string, string> = {};
      for (const d of err.details) {
        const found = slotOf(d.path);
        if (found === null) continue;
        names[d.path] = found.name;
        setError(found.s, detailSentence(d) ?? h('span', { lang: 'en' }, d.message));
      }
      status.replaceChildren(errorBox(err, names));
      const first = form.querySelector<HTMLElement>('[aria-invalid="true"]');
      (first ?? status.querySelector<HTMLElement>('[role="alert"]'))?.focus();
      return;
    }
    status.replaceChildren(errorBox(err));
  };

  let key = newKey();
  let keyedBody = '';
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (emit.disabled) return;
    void busy(emit, async () => {
      status.replaceChildren();
      if (!precheck()) return;
      const body = invoiceBody(readInput());
      // One key per body: a second click (or a retry after a network error) replays the first
      // emission; a corrected body after a 422 is a new request.
      const text = JSON.stringify(body);
      if (text !== keyedBody) {
        key = newKey();
        keyedBody = text;
      }
      try {
        const doc = await ctx.api.post<{ internalTrackId: string }>(`/${ctx.env}/documentos-ecf`, body, { 'Idempotency-Key': key });
        ctx.navigate(`#${PATHS.documents}/${doc.internalTrackId}`);
      } catch (err) {
        showServerError(err);
      }
    });
  });

  preview.addEventListener('click', () => void busy(preview, async () => {
    status.replaceChildren();
    if (!precheck()) return;
    const tab = window.open('', '_blank');
    try {
      const blob = await ctx.api.download(`/${ctx.env}/documentos-ecf/borrador/pdf`, { body: invoiceBody(readInput()) });
      const href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
      if (tab !== null) tab.location.href = href;
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
    } catch (err) {
      tab?.close();
      showServerError(err);
    }
  }));
}
