import type { Indicator } from '../../ecf/totals.ts';
import type { PageContext } from './context.ts';
import { busy, errorBox, h, notice, uid } from './dom.ts';
import type { DirectoryName, SavedCustomer, SavedItem } from './types.ts';

// The invoice form's memory: the tenant's saved customers (found by RNC as it is typed, the
// directory of DGII asked when none is saved) and saved items (offered as the description is
// typed, filling price, rate and kind). Both are saved from the form and edited on #/guardados.

/**
 * Looks a valid RNC up once: the saved customer with it, else the name DGII's directory gives.
 * A lookup that fails is silent: the name is a convenience, typed by hand all the same.
 */
export function buyerLookup(ctx: PageContext, onName: (name: string) => void, onCustomer: (c: { email: string | null }) => void): (rnc: string) => void {
  let last = '';
  return (rnc) => {
    if (rnc === last) return;
    last = rnc;
    void (async () => {
      try {
        const [saved] = await ctx.api.get<SavedCustomer[]>(`/api/clientes?rnc=${encodeURIComponent(rnc)}`, ctx.signal);
        if (rnc !== last) return;
        if (saved !== undefined) {
          onName(saved.nombre);
          onCustomer({ email: saved.correo });
          return;
        }
        const found = await ctx.api.get<DirectoryName>(`/${ctx.env}/directorio/${encodeURIComponent(rnc)}`, ctx.signal);
        if (rnc === last && found.nombre !== null) onName(found.nombre);
      } catch {
        // No saved customer and no directory answer (no certificate yet, DGII down): typed by hand.
      }
    })();
  };
}

/** "Guardar cliente": saves the buyer as typed (one per RNC: saving it again updates it). */
export function customerSaver(ctx: PageContext, current: () => { rnc: string; name: string; email: string }): { element: HTMLElement } {
  const status = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'secondary small', 'data-action': 'save-customer' }, 'Guardar cliente');
  button.addEventListener('click', () => void busy(button, async () => {
    status.replaceChildren();
    const c = current();
    try {
      const saved = await ctx.api.post<SavedCustomer>('/api/clientes', { rnc: c.rnc.replace(/[\s-]/g, ''), nombre: c.name, correo: c.email === '' ? null : c.email });
      status.replaceChildren(notice(`Cliente ${saved.nombre} guardado.`));
    } catch (err) {
      status.replaceChildren(errorBox(err, { rnc: 'RNC o cédula del comprador', nombre: 'Nombre o razón social del comprador', correo: 'Correo del comprador' }));
    }
  }));
  return { element: h('div', { class: 'save-row' }, h('div', { class: 'actions' }, button, h('a', { href: '#/guardados' }, 'Clientes y artículos guardados')), status) };
}

export interface ItemValues {
  description: string;
  price: string;
  indicator: Indicator;
  kind: '1' | '2';
}

/** The saved items, offered in a datalist the description inputs share. */
export class ItemCatalog {
  readonly datalist: HTMLDataListElement;
  private items: SavedItem[] = [];
  private readonly ctx: PageContext;

  constructor(ctx: PageContext) {
    this.ctx = ctx;
    this.datalist = h('datalist', { id: uid('items') });
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.items = await this.ctx.api.get<SavedItem[]>('/api/articulos?limit=500', this.ctx.signal);
      this.datalist.replaceChildren(...this.items.map((i) => h('option', { value: i.descripcion })));
    } catch {
      // Without the list the form works the same; nothing is offered.
    }
  }

  find(description: string): ItemValues | undefined {
    const item = this.items.find((i) => i.descripcion === description.trim());
    return item === undefined ? undefined : {
      description: item.descripcion, price: item.precioUnitario, indicator: item.indicadorFacturacion as Indicator, kind: item.indicadorBienoServicio === 2 ? '2' : '1',
    };
  }

  /** A line's "Guardar artículo": saves its description, price, rate and kind. */
  saveButton(current: () => ItemValues): HTMLElement {
    const status = h('span', { class: 'save-status', 'aria-live': 'polite' });
    const button = h('button', { type: 'button', class: 'secondary small', 'data-action': 'save-item' }, 'Guardar artículo');
    button.addEventListener('click', () => void busy(button, async () => {
      status.replaceChildren();
      const v = current();
      try {
        const saved = await this.ctx.api.post<SavedItem>('/api/articulos', { descripcion: v.description, precioUnitario: v.price, indicadorFacturacion: v.indicator, indicadorBienoServicio: Number(v.kind) });
        status.textContent = `Artículo «${saved.descripcion}» guardado.`;
        await this.load();
      } catch (err) {
        status.replaceChildren(errorBox(err, { descripcion: 'Descripción', precioUnitario: 'Precio unitario', indicadorFacturacion: 'ITBIS' }));
      }
    }));
    return h('span', { class: 'save-item' }, button, status);
  }
}
