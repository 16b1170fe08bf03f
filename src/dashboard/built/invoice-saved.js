// Built from src/dashboard/client/invoice-saved.ts by `npm run build:dashboard`: edit that file, not this one.
import { busy, errorBox, h, notice, uid } from "./dom.js";
export function buyerLookup(ctx, onName, onCustomer) {
    let last = '';
    return (rnc) => {
        if (rnc === last)
            return;
        last = rnc;
        void (async () => {
            try {
                const [saved] = await ctx.api.get(`/api/clientes?rnc=${encodeURIComponent(rnc)}`, ctx.signal);
                if (rnc !== last)
                    return;
                if (saved !== undefined) {
                    onName(saved.nombre);
                    onCustomer({ email: saved.correo });
                    return;
                }
                const found = await ctx.api.get(`/${ctx.env}/directorio/${encodeURIComponent(rnc)}`, ctx.signal);
                if (rnc === last && found.nombre !== null)
                    onName(found.nombre);
            }
            catch {
            }
        })();
    };
}
export function customerSaver(ctx, current) {
    const status = h('div', { 'aria-live': 'polite' });
    const button = h('button', { type: 'button', class: 'secondary small', 'data-action': 'save-customer' }, 'Guardar cliente');
    button.addEventListener('click', () => void busy(button, async () => {
        status.replaceChildren();
        const c = current();
        try {
            const saved = await ctx.api.post('/api/clientes', { rnc: c.rnc.replace(/[\s-]/g, ''), nombre: c.name, correo: c.email === '' ? null : c.email });
            status.replaceChildren(notice(`Cliente ${saved.nombre} guardado.`));
        }
        catch (err) {
            status.replaceChildren(errorBox(err, { rnc: 'RNC o cédula del comprador', nombre: 'Nombre o razón social del comprador', correo: 'Correo del comprador' }));
        }
    }));
    return { element: h('div', { class: 'save-row' }, h('div', { class: 'actions' }, button, h('a', { href: '#/guardados' }, 'Clientes y artículos guardados')), status) };
}
export class ItemCatalog {
    datalist;
    items = [];
    ctx;
    constructor(ctx) {
        this.ctx = ctx;
        this.datalist = h('datalist', { id: uid('items') });
        void this.load();
    }
    async load() {
        try {
            this.items = await this.ctx.api.get('/api/articulos?limit=500', this.ctx.signal);
            this.datalist.replaceChildren(...this.items.map((i) => h('option', { value: i.descripcion })));
        }
        catch {
        }
    }
    find(description) {
        const item = this.items.find((i) => i.descripcion === description.trim());
        return item === undefined ? undefined : {
            description: item.descripcion, price: item.precioUnitario, indicator: item.indicadorFacturacion, kind: item.indicadorBienoServicio === 2 ? '2' : '1',
        };
    }
    saveButton(current) {
        const status = h('span', { class: 'save-status', 'aria-live': 'polite' });
        const button = h('button', { type: 'button', class: 'secondary small', 'data-action': 'save-item' }, 'Guardar artículo');
        button.addEventListener('click', () => void busy(button, async () => {
            status.replaceChildren();
            const v = current();
            try {
                const saved = await this.ctx.api.post('/api/articulos', { descripcion: v.description, precioUnitario: v.price, indicadorFacturacion: v.indicator, indicadorBienoServicio: Number(v.kind) });
                status.textContent = `Artículo «${saved.descripcion}» guardado.`;
                await this.load();
            }
            catch (err) {
                status.replaceChildren(errorBox(err, { descripcion: 'Descripción', precioUnitario: 'Precio unitario', indicadorFacturacion: 'ITBIS' }));
            }
        }));
        return h('span', { class: 'save-item' }, button, status);
    }
}
