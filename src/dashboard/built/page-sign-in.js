// Built from src/dashboard/client/page-sign-in.ts by `npm run build:dashboard`: edit that file, not this one.
import { busy, errorBox, field, focusSecret, h, notice, secretBox } from "./dom.js";
let pending = null;
export function leaveSignInMessage(text, tone) {
    pending = { text, tone };
}
const CLOSED = 'Este servidor no admite el registro de nuevas cuentas. Pida una cuenta al administrador del servicio.';
export async function signInPage(ctx) {
    const { registrationEnabled } = await ctx.api.publicConfig();
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, spellcheck: 'false' });
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
    const submit = h('button', { type: 'submit' }, 'Ingresar');
    const status = h('div', { 'aria-live': 'polite' }, pending === null ? null : notice(pending.text, pending.tone));
    pending = null;
    const form = h('form', { class: 'stack narrow', 'aria-labelledby': ctx.heading.id }, field('Correo electrónico', email), field('Contraseña', password), h('div', { class: 'actions' }, submit), status);
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(submit, async () => {
            status.replaceChildren();
            try {
                await ctx.api.signIn(email.value.trim(), password.value);
                ctx.navigate('#/documentos');
            }
            catch (err) {
                status.replaceChildren(errorBox(err));
                password.select();
            }
        });
    });
    const newAccount = registrationEnabled
        ? h('p', { class: 'aside' }, '¿Aún no tiene cuenta? ', h('a', { href: '#/registro' }, 'Crear una cuenta'))
        : h('p', { class: 'aside hint', 'data-registration': 'closed' }, CLOSED);
    ctx.root.append(h('div', { class: 'card narrow' }, form, newAccount));
}
export async function registerPage(ctx) {
    if (!(await ctx.api.publicConfig()).registrationEnabled) {
        ctx.root.append(h('div', { class: 'card narrow', 'data-registration': 'closed' }, notice(CLOSED, 'warn'), h('p', { class: 'aside' }, '¿Ya tiene cuenta? ', h('a', { href: '#/ingresar' }, 'Ingresar'))));
        return;
    }
    const name = h('input', { type: 'text', name: 'name', autocomplete: 'organization', required: true, maxlength: '150' });
    const rnc = h('input', { type: 'text', name: 'rnc', inputmode: 'numeric', required: true, pattern: '\\d{9}|\\d{11}', maxlength: '11', autocomplete: 'off' });
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, spellcheck: 'false' });
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: '10', maxlength: '256' });
    const submit = h('button', { type: 'submit' }, 'Crear cuenta');
    const status = h('div', { 'aria-live': 'polite' });
    const form = h('form', { class: 'stack narrow', 'aria-labelledby': ctx.heading.id }, field('Nombre de la empresa', name), field('RNC o cédula', rnc, '9 dígitos (RNC) u 11 (cédula), sin guiones.'), field('Correo electrónico', email), field('Contraseña', password, 'Entre 10 y 256 caracteres.'), h('div', { class: 'actions' }, submit), status);
    const card = h('div', { class: 'card narrow' }, form, h('p', null, '¿Ya tiene cuenta? ', h('a', { href: '#/ingresar' }, 'Ingresar')));
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(submit, async () => {
            status.replaceChildren();
            try {
                const made = await ctx.api.register({ name: name.value.trim(), rnc: rnc.value.trim(), email: email.value.trim(), password: password.value });
                await ctx.api.signIn(email.value.trim(), password.value);
                const go = h('button', { type: 'button', onclick: () => ctx.navigate('#/documentos') }, 'Continuar al panel');
                const key = secretBox('Clave API', made.apiKey.key, 'new-api-key');
                card.replaceChildren(notice(`Cuenta creada para ${made.tenant.name} (RNC ${made.tenant.rnc}).`), h('p', null, 'Esta es la primera clave API de su empresa. Su sistema la usa para emitir documentos.'), key, h('div', { class: 'actions' }, go));
                ctx.heading.textContent = 'Cuenta creada';
                focusSecret(key);
            }
            catch (err) {
                status.replaceChildren(errorBox(err));
            }
        });
    });
    ctx.root.append(card);
}
