import { PATHS, type PageContext } from './context.ts';
import { busy, confirmAction, empty, errorBox, field, h, loading, money, notice, select, table } from './dom.ts';
import { RATE_LABELS } from './invoice-body.ts';
import type { SavedCustomer, SavedItem } from './types.ts';

// The saved customers and items of the invoice form, to correct or delete. Both are created
// from the form (Guardar cliente, Guardar artículo); here each list has one small form that
// edits the row chosen with Editar, or saves a new one.

interface Part<T> {
  title: string;
  headingId: string;
  path: string;
  columns: readonly string[];
  cells: (row: T) => (string | Node)[];
  name: (row: T) => string;
  /** The form's controls, a label for each, and how a row fills them and they make a body. */
  controls: { label: string; control: HTMLInputElement | HTMLSelectElement; read: (row: T) => string }[];
  body: () => Record<string, unknown>;
  fieldNames: Readonly<Record<string, string>>;
  list: string;
}

function part<T extends { id: string }>(ctx: PageContext, p: Part<T>): { section: HTMLElement; reload: () => Promise<void> } {
  const listBox = h('div', null, loading());
  const status = h('div', { 'aria-live': 'polite' });
  let editing: string | null = null;
  const legend = h('h3', null, 'Nuevo');
  const submit = h('button', { type: 'submit' }, 'Guardar');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancelar');
  const reset = (): void => {
    editing = null;
    legend.textContent = 'Nuevo';
    for (const c of p.controls) c.control.value = c.control instanceof HTMLSelectElement ? (c.control.options[0]?.value ?? '') : '';
  };
  cancel.addEventListener('click', reset);
  const form = h('form', { class: 'stack narrow', novalidate: true, 'data-form': p.list },
    legend, p.controls.map((c) => field(c.label, c.control)), h('div', { class: 'actions' }, submit, cancel));
  const reload = async (): Promise<void> => {
    try {
      const rows = await ctx.api.get<T[]>(`${p.path}?limit=500`, ctx.signal);
      listBox.replaceChildren(rows.length === 0 ? empty('Nada guardado todavía.') : table([...p.columns, ''], rows.map((row) => {
        const edit = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Editar ${p.name(row)}` }, 'Editar');
        edit.addEventListener('click', () => {
          editing = row.id;
          legend.textContent = `Editar ${p.name(row)}`;
          for (const c of p.controls) c.control.value = c.read(row);
          p.controls[0]?.control.focus();
        });
        const remove = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Eliminar ${p.name(row)}` }, 'Eliminar');
        remove.addEventListener('click', () => void (async () => {
          if (!(await confirmAction(`¿Eliminar ${p.name(row)}?`, 'Eliminar'))) return;
          try {
            await ctx.api.delete<unknown>(`${p.path}/${row.id}`);
            status.replaceChildren(notice(`${p.name(row)} eliminado.`));
            await reload();
          } catch (err) {
            status.replaceChildren(errorBox(err));
          }
        })());
        return [...p.cells(row), h('div', { class: 'actions' }, edit, remove)];
      }), { 'data-list': p.list, 'data-titled': '' }));
    } catch (err) {
      if (!ctx.signal.aborted) listBox.replaceChildren(errorBox(err));
    }
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void busy(submit, async () => {
      status.replaceChildren();
      try {
        const saved = editing === null ? await ctx.api.post<T>(p.path, p.body()) : await ctx.api.put<T>(`${p.path}/${editing}`, p.body());
        status.replaceChildren(notice(`${p.name(saved)} guardado.`));
        reset();
        await reload();
      } catch (err) {
        status.replaceChildren(errorBox(err, p.fieldNames));
      }
    });
  });
  return {
    section: h('section', { class: 'card', 'aria-labelledby': p.headingId }, h('h2', { id: p.headingId }, p.title), listBox, form, status),
    reload,
  };
}

export async function savedPage(ctx: PageContext): Promise<void> {
  const rnc = h('input', { type: 'text', name: 'rnc', inputmode: 'numeric', maxlength: 11, autocomplete: 'off' });
  const nombre = h('input', { type: 'text', name: 'nombre', maxlength: 150 });
  const correo = h('input', { type: 'email', name: 'correo', maxlength: 80 });
  const customers = part<SavedCustomer>(ctx, {
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
  const itbis = select('indicadorFacturacion', ([1, 2, 3, 4] as const).map((i) => [String(i), RATE_LABELS[i]] as const), '1');
  const tipo = select('indicadorBienoServicio', [['1', 'Bien'], ['2', 'Servicio']], '1');
  const items = part<SavedItem>(ctx, {
    title: 'Artículos', headingId: 'saved-items', path: '/api/articulos', list: 'saved-items',
    columns: ['Descripción', 'Precio unitario', 'ITBIS', 'Tipo'],
    cells: (i) => [i.descripcion, money(i.precioUnitario), RATE_LABELS[i.indicadorFacturacion as 1] ?? String(i.indicadorFacturacion), i.indicadorBienoServicio === 2 ? 'Servicio' : 'Bien'],
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
  ctx.root.append(
    h('p', null, h('a', { href: `#${PATHS.newInvoice}` }, '← Nueva factura')),
    h('p', { class: 'lead' }, 'Se usan en todos los ambientes. Se crean desde el formulario de la factura, o aquí.'),
    customers.section, items.section);
  await Promise.all([customers.reload(), items.reload()]);
}
