// Built from src/dashboard/client/context.ts by `npm run build:dashboard`: edit that file, not this one.
export const PATHS = {
    documents: '/documentos',
    overview: '/resumen',
    received: '/recibidos',
    sequences: '/secuencias',
    certification: '/certificacion',
    settings: '/configuracion',
    webhooks: '/configuracion/webhooks',
    deliveries: '/configuracion/entregas',
    certificate: '/configuracion/certificado',
    keys: '/configuracion/claves',
    printing: '/configuracion/impresion',
    newInvoice: '/nueva-factura',
    saved: '/guardados',
};
export function hashOf(path, query = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
        if (v !== null && v !== undefined && v !== '')
            q.set(k, v);
    const s = q.toString();
    return `#${path}${s === '' ? '' : `?${s}`}`;
}
export function poll(signal, ms, step) {
    const tick = () => {
        if (signal.aborted)
            return;
        const timer = setTimeout(() => {
            step().then((again) => (again ? tick() : undefined), () => tick());
        }, ms);
        signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    };
    tick();
}
export class CursorTrail {
    key = '';
    cursors = [null];
    use(key) {
        if (key !== this.key) {
            this.key = key;
            this.cursors = [null];
        }
        return this;
    }
    get cursor() {
        return this.cursors[this.cursors.length - 1] ?? null;
    }
    get page() {
        return this.cursors.length;
    }
    get hasPrevious() {
        return this.cursors.length > 1;
    }
    next(cursor) {
        this.cursors.push(cursor);
    }
    previous() {
        if (this.cursors.length > 1)
            this.cursors.pop();
    }
}
