// Built from src/dashboard/client/received-settings.ts by `npm run build:dashboard`: edit that file, not this one.
import { busy, errorBox, h, loading, notice } from "./dom.js";
const PATH = '/api/receptor/settings';
export function receiverSettingsSection(ctx) {
    const body = h('div', null, loading());
    const section = h('section', { class: 'card', 'aria-labelledby': 'rs-title', 'data-section': 'receiver-settings' }, h('h2', { id: 'rs-title' }, 'Verificación con DGII'), h('p', { class: 'hint' }, 'Cada e-CF recibido se consulta a DGII. Un e-CF que DGII no conoce pudo haber sido fabricado.'), body);
    void (async () => {
        try {
            const initial = await ctx.api.get(PATH, ctx.signal);
            const box = h('input', { type: 'checkbox', name: 'rechazarDesconocidosDgii', checked: initial.rechazarDesconocidosDgii });
            const status = h('div', { 'aria-live': 'polite' });
            const save = h('button', { type: 'submit', class: 'secondary' }, 'Guardar');
            const form = h('form', { class: 'stack' }, h('label', { class: 'check' }, box, ' ', 'Rechazar automáticamente los e-CF que DGII no conoce'), h('div', { class: 'actions' }, save), status);
            form.addEventListener('submit', (ev) => {
                ev.preventDefault();
                void busy(save, async () => {
                    status.replaceChildren();
                    try {
                        const next = await ctx.api.put(PATH, { rechazarDesconocidosDgii: box.checked });
                        box.checked = next.rechazarDesconocidosDgii;
                        status.replaceChildren(notice(next.rechazarDesconocidosDgii ? 'Guardado: se rechazarán los e-CF que DGII no conoce.' : 'Guardado: usted decide sobre cada e-CF recibido.'));
                    }
                    catch (err) {
                        status.replaceChildren(errorBox(err));
                    }
                });
            });
            body.replaceChildren(form);
        }
        catch (err) {
            if (!ctx.signal.aborted)
                body.replaceChildren(errorBox(err));
        }
    })();
    return section;
}
