// Built from src/dashboard/client/page-saved.ts by `npm run build:dashboard`: edit that file, not this one.
import { PATHS } from "./context.js";
import { busy, confirmAction, empty, errorBox, field, h, loading, money, notice, select, table } from "./dom.js";
import { RATE_LABELS } from "./invoice-body.js";
function part(ctx, p) {
    const listBox = h('div', null, loading());
    const status = h('div', { 'aria-live': 'polite' });
    let editing = null;
    const legend = h('h3', null, 'Nuevo');
    const submit = h('button', { type: 'submit' }, 'Guardar');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancelar');
    const reset = () => {
        editing = null;
        legend.textContent = 'Nuevo';
        for (const c of p.controls)
            c.control.value = c.control instanceof HTMLSelectElement ? (c.control.options[0]?.value ?? '') : '';
    };
    cancel.addEventListener('click', reset);
    const form = h('form', { class: 'stack narrow', novalidate: true, 'data-form': p.list }, legend, p.controls.map((c) => field(c.label, c.control)), h('div', { class: 'actions' }, submit, cancel));
    const reload = async () => {
        try {
            const rows = await ctx.api.get(`${p.path}?limit=500`, ctx.signal);
            listBox.replaceChildren(rows.length === 0 ? empty('Nada guardado todavía.') : table([...p.columns, ''], rows.map((row) => {
                const edit = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Editar ${p.name(row)}` }, 'Editar');
                edit.addEventListener('click', () => {
                    editing = row.id;
                    legend.textContent = `Editar ${p.name(row)}`;
                    for (const c of p.controls)
                        c.control.value = c.read(row);
                    p.controls[0]?.control.focus();
                });
                const remove = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Eliminar ${p.name(row)}` }, 'Eliminar');
                remove.addEventListener('click', () => void (async () => {
                    if (!(await confirmAction(`¿Eliminar ${p.name(row)}?`, 'Eliminar')))
                        return;
                    try {
                        await ctx.api.delete(`${p.path}/${row.id}`);
                        status.replaceChildren(notice(`${p.name(row)} eliminado.`));
                        await reload();
                    }
                    catch (err) {
                        status.replaceChildren(errorBox(err));
                    }
                })());
                return [...p.cells(row), h('div', { class: 'actions' }, edit, remove)];
            }), { 'data-list': p.list, 'data-titled': '' }));
        }
        catch (err) {
            if (!ctx.signal.aborted)
                listBox.replaceChildren(errorBox(err));
        }
    };
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(submit, async () => {
            status.replaceChildren();
            try {
                const saved = editing === null ? await ctx.api.post(p.path, p.body()) : await ctx.api.put(`${p.path}/${editing}`, p.body());
                status.replaceChildren(notice(`${p.name(saved)} guardado.`));
                reset();
                await reload();
            }
            catch (err) {
                status.replaceChildren(errorBox(err, p.fieldNames));
            }
        });
    });
    return {
        section: h('section', { class: 'card', 'aria-labelledby': p.headingId }, h('h2', { id: p.headingId }, p.title), listBox, form, status),
        reload,
    };
}
export async function savedPage(ctx) {
    const rnc = h('input', { type: 'text', name: 'rnc', inputmode: 'numeric', maxlength: 11, autocomplete: 'off' });
    const nombre = h('input', { type: 'text', name: 'nombre', maxlength: 150 });
    const correo = h('input', { type: 'email', name: 'correo', maxlength: 80 });
    const customers = part(ctx, {
        title: 'Clientes', headingId: 'saved-customers', path: '/api/clientes', list: 'saved-customers',
        columns: ['Nombre', 'RNC o cédula', 'Correo'],
        cells: (c) => [c.nombre, h('span', { class: 'mono' }, c.rnc), c.correo ?? '—'],
        name: (c) => c.nombre,
        controls: [
            { label: 'RNC o cédula', control: rnc, read: (c) => c.rnc },
            { label: 'Nombre o razón social', control: nombre, read: (c) => c.nombre },
            { label: 'Correo', control: correo, read: (c) => c.correo ?? '' },
        ],
        body: () => ({ rnc: rnc.value.replace(/[\s-]/g, ''), nombre: nombre.value, correo: correo.value.trim() === '' ? null : correo.value.trim() }),
        fieldNames: { rnc: 'RNC o cédula', nombre: 'Nombre o razón social', correo: 'Correo' },
    });
    const descripcion = h('input', { type: 'text', name: 'descripcion', maxlength: 80 });
    const precio = h('input', { type: 'text', name: 'precioUnitario', inputmode: 'decimal' });
    const itbis = select('indicadorFacturacion', [1, 2, 3, 4].map((i) => [String(i), RATE_LABELS[i]]), '1');
    const tipo = select('indicadorBienoServicio', [['1', 'Bien'], ['2', 'Servicio']], '1');
    const items = part(ctx, {
        title: 'Artículos', headingId: 'saved-items', path: '/api/articulos', list: 'saved-items',
        columns: ['Descripción', 'Precio unitario', 'ITBIS', 'Tipo'],
        cells: (i) => [i.descripcion, money(i.precioUnitario), RATE_LABELS[i.indicadorFacturacion] ?? String(i.indicadorFacturacion), i.indicadorBienoServicio === 2 ? 'Servicio' : 'Bien'],
        name: (i) => i.descripcion,
        controls: [
            { label: 'Descripción', control: descripcion, read: (i) => i.descripcion },
            { label: 'Precio unitario', control: precio, read: (i) => i.precioUnitario },
            { label: 'ITBIS', control: itbis, read: (i) => String(i.indicadorFacturacion) },
            { label: 'Bien o servicio', control: tipo, read: (i) => String(i.indicadorBienoServicio) },
        ],
        body: () => ({ descripcion: descripcion.value, precioUnitario: precio.value.trim().replace(/,/g, ''), indicadorFacturacion: Number(itbis.value), indicadorBienoServicio: Number(tipo.value) }),
        fieldNames: { descripcion: 'Descripción', precioUnitario: 'Precio unitario', indicadorFacturacion: 'ITBIS', indicadorBienoServicio: 'Bien o servicio' },
    });
    ctx.root.append(h('p', null, h('a', { href: `#${PATHS.newInvoice}` }, '← Nueva factura')), h('p', { class: 'lead' }, 'Se usan en todos los ambientes. Se crean desde el formulario de la factura, o aquí.'), customers.section, items.section);
    await Promise.all([customers.reload(), items.reload()]);
}
