// Built from src/dashboard/client/invoice-lines.ts by `npm run build:dashboard`: edit that file, not this one.
import { formatDec } from "./decimal.js";
import { h, money, select } from "./dom.js";
import { RATE_LABELS, TYPE_FORMS } from "./invoice-body.js";
import { input, setError, slot } from "./invoice-fields.js";
import { ItemCatalog } from "./invoice-saved.js";
export function linesEditor(ctx, tipo, changed) {
    const catalog = new ItemCatalog(ctx);
    const rows = [];
    const lineList = h('div', { class: 'lines', 'data-list': 'invoice-lines' });
    const rateOptions = () => TYPE_FORMS[tipo()].rates.map((r) => [String(r), RATE_LABELS[r]]);
    const addLine = (values = {}) => {
        const rate = select('itbis', rateOptions(), String(values.indicator ?? TYPE_FORMS[tipo()].rates[0]));
        const row = {
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
            changed();
            (rows[0]?.description.control ?? addButton).focus();
        });
        row.description.control.setAttribute('list', catalog.datalist.id);
        row.description.control.addEventListener('change', () => {
            const item = catalog.find(row.description.control.value);
            if (item === undefined)
                return;
            row.price.control.value = item.price;
            if (TYPE_FORMS[tipo()].rates.includes(item.indicator))
                row.rate.control.value = String(item.indicator);
            row.kind.control.value = item.kind;
            changed();
        });
        const pick = catalog.saveButton(() => ({
            description: row.description.control.value.trim(), price: row.price.control.value.trim().replace(/,/g, ''),
            indicator: Number(row.rate.control.value), kind: row.kind.control.value === '2' ? '2' : '1',
        }));
        row.el.append(row.legend, h('div', { class: 'line-grid' }, row.description.wrap, row.quantity.wrap, row.price.wrap, row.rate.wrap, row.discount.wrap, row.kind.wrap, h('div', { class: 'field' }, h('span', { class: 'label' }, 'Importe'), row.amount)), h('div', { class: 'actions' }, pick, remove));
        rows.push(row);
        lineList.append(row.el);
        return row;
    };
    const addButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'add-line' }, 'Agregar línea');
    addButton.addEventListener('click', () => {
        addLine().description.control.focus();
        changed();
    });
    const section = h('section', { class: 'card', 'aria-labelledby': 'inv-lines' }, h('h2', { id: 'inv-lines' }, 'Líneas'), h('p', { class: 'hint' }, 'Precios sin ITBIS; el ITBIS se calcula por línea según su tasa.'), lineList, catalog.datalist, h('div', { class: 'actions' }, addButton));
    lineList.addEventListener('input', () => changed());
    lineList.addEventListener('change', () => changed());
    return {
        section,
        add: (values) => void addLine(values),
        count: () => rows.length,
        inputs: () => rows.map((r) => ({
            description: r.description.control.value,
            quantity: r.quantity.control.value,
            price: r.price.control.value,
            indicator: Number(r.rate.control.value),
            kind: r.kind.control.value === '2' ? '2' : '1',
            discount: r.discount.control.value,
        })),
        showAmounts: (lines) => {
            rows.forEach((r, i) => {
                r.legend.textContent = `Línea ${i + 1}`;
                const m = lines[i]?.monto ?? null;
                r.amount.textContent = m === null ? '—' : money(formatDec(m));
                r.amount.setAttribute('data-value', m === null ? '' : formatDec(m));
            });
        },
        syncRates: () => {
            const tf = TYPE_FORMS[tipo()];
            for (const r of rows) {
                const current = Number(r.rate.control.value);
                const options = rateOptions();
                r.rate.control.replaceChildren(...options.map(([value, label]) => h('option', { value }, label)));
                r.rate.control.value = tf.rates.includes(current) ? String(current) : String(tf.rates[0]);
            }
        },
        slots: () => rows.flatMap((r, i) => {
            const at = `ECF.DetallesItems.Item[${i}]`;
            return [[`${at}.NombreItem`, r.description], [`${at}.CantidadItem`, r.quantity], [`${at}.PrecioUnitarioItem`, r.price],
                [`${at}.IndicadorFacturacion`, r.rate], [`${at}.DescuentoMonto`, r.discount], [`${at}.TablaSubDescuento`, r.discount],
                [`${at}.IndicadorBienoServicio`, r.kind], [`${at}.MontoItem`, r.price], [at, r.description]];
        }),
        checkDescriptions: () => {
            let ok = true;
            for (const r of rows) {
                if (r.description.control.value.trim() === '') {
                    setError(r.description, 'Es obligatoria.');
                    ok = false;
                }
            }
            return ok;
        },
    };
}
