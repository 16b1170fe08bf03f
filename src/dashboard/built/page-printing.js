// Built from src/dashboard/client/page-printing.ts by `npm run build:dashboard`: edit that file, not this one.
import { ApiError } from "./api.js";
import { busy, confirmAction, errorBox, field, h, loading, notice } from "./dom.js";
import { imageData } from "./download.js";
const LOGO = '/api/logo';
const EMAIL = '/api/email/settings';
const MAX_BYTES = 256 * 1024;
function logoSection(ctx) {
    const preview = h('div', { 'data-field': 'logo' });
    const status = h('div', { 'aria-live': 'polite' });
    const file = h('input', { type: 'file', name: 'logo', accept: 'image/png,image/jpeg', required: true });
    const upload = h('button', { type: 'submit' }, 'Subir logo');
    const remove = h('button', { type: 'button', class: 'secondary', 'data-action': 'remove-logo', hidden: true }, 'Quitar logo');
    const show = async () => {
        try {
            const src = await imageData(ctx, LOGO);
            preview.replaceChildren(h('img', { src, alt: 'Logo actual', class: 'logo-preview', 'data-logo': '' }));
            remove.hidden = false;
        }
        catch (err) {
            if (err instanceof ApiError && err.status === 404) {
                preview.replaceChildren(h('p', null, 'Sin logo: sus comprobantes se imprimen solo con el nombre.'));
                remove.hidden = true;
            }
            else {
                preview.replaceChildren(errorBox(err));
            }
        }
    };
    const form = h('form', { class: 'stack', 'aria-labelledby': 'logo-heading' }, field('Archivo PNG o JPEG', file, `Hasta ${MAX_BYTES / 1024} KiB. Se imprime arriba de cada e-CF (carta, A4 y ticket), ajustado a su espacio.`), h('div', { class: 'actions' }, upload, remove), status);
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(upload, async () => {
            status.replaceChildren();
            const chosen = file.files?.[0];
            if (chosen === undefined)
                return;
            try {
                const type = chosen.type === 'image/jpeg' || /\.jpe?g$/i.test(chosen.name) ? 'image/jpeg' : 'image/png';
                const saved = await ctx.api.putFile(LOGO, chosen, type);
                status.replaceChildren(notice(`Logo guardado (${saved.width} × ${saved.height} píxeles).`));
                file.value = '';
                await show();
            }
            catch (err) {
                status.replaceChildren(errorBox(err));
            }
        });
    });
    remove.addEventListener('click', () => void busy(remove, async () => {
        if (!(await confirmAction('Sus comprobantes se imprimirán sin logo. ¿Quitarlo?', 'Quitar logo')))
            return;
        status.replaceChildren();
        try {
            await ctx.api.remove(LOGO);
            status.replaceChildren(notice('Logo quitado.'));
            await show();
        }
        catch (err) {
            status.replaceChildren(errorBox(err));
        }
    }));
    preview.replaceChildren(loading());
    void show();
    return h('section', { class: 'card' }, h('h2', { id: 'logo-heading' }, 'Logo'), preview, form);
}
function emailSection(ctx, initial) {
    const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: initial.enabled });
    const replyTo = h('input', { type: 'email', name: 'replyTo', value: initial.replyTo ?? '', placeholder: 'contabilidad@su-empresa.do', autocomplete: 'email', spellcheck: 'false' });
    const status = h('div', { 'aria-live': 'polite' });
    const save = h('button', { type: 'submit' }, 'Guardar');
    const form = h('form', { class: 'stack', 'aria-labelledby': 'email-heading' }, initial.smtpConfigured ? null : notice('Este servicio aún no tiene servidor de correo (SMTP_URL): no se enviará nada hasta que el operador lo configure.', 'warn'), h('label', { class: 'check' }, enabled, ' Enviar por correo al comprador cada e-CF aceptado por la DGII que indique su correo (CorreoComprador), con el PDF y el XML firmado'), field('Responder a', replyTo, 'Las respuestas del comprador llegan a esta dirección. Déjela vacía si no desea una.'), h('div', { class: 'actions' }, save), status);
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(save, async () => {
            status.replaceChildren();
            try {
                const value = replyTo.value.trim();
                const next = await ctx.api.put(EMAIL, { enabled: enabled.checked, replyTo: value === '' ? null : value });
                status.replaceChildren(notice(next.enabled ? 'Guardado: los e-CF aceptados se enviarán al comprador.' : 'Guardado: no se enviarán correos.'));
            }
            catch (err) {
                status.replaceChildren(errorBox(err));
            }
        });
    });
    return h('section', { class: 'card' }, h('h2', { id: 'email-heading' }, 'Correo al comprador'), form);
}
export async function printingPage(ctx) {
    const body = h('div', { class: 'stack' }, loading());
    ctx.root.append(body);
    let settings;
    try {
        settings = await ctx.api.get(EMAIL, ctx.signal);
    }
    catch (err) {
        if (!ctx.signal.aborted)
            body.replaceChildren(errorBox(err));
        return;
    }
    body.replaceChildren(logoSection(ctx), emailSection(ctx, settings));
}
