// Built from src/dashboard/client/page-webhooks.ts by `npm run build:dashboard`: edit that file, not this one.
import { PATHS } from "./context.js";
import { deliveryBadge } from "./delivery-view.js";
import { busy, confirmAction, errorBox, facts, field, focusSecret, h, loading, notice, orDash, secretBox, time } from "./dom.js";
import { deliveryError } from "./errors.js";
const SETTINGS = '/api/webhooks/settings';
function urlSection(ctx, initial, apply) {
    const input = h('input', { type: 'url', name: 'webhookUrl', value: initial.webhookUrl ?? '', placeholder: 'https://erp.ejemplo.do/webhooks/ecf', autocomplete: 'url', spellcheck: 'false', inputmode: 'url' });
    const status = h('div');
    const save = h('button', { type: 'submit' }, 'Guardar URL');
    const form = h('form', { class: 'stack', 'aria-labelledby': 'wh-url' }, field('URL del receptor', input, 'Recibe un POST JSON firmado por cada evento. Déjela vacía para dejar de enviar webhooks.'), h('div', { class: 'actions' }, save), status);
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        void busy(save, async () => {
            status.replaceChildren();
            try {
                const value = input.value.trim();
                const next = await ctx.api.put(SETTINGS, { webhookUrl: value === '' ? null : value });
                status.replaceChildren(notice(next.webhookUrl === null ? 'URL eliminada: no se enviarán webhooks.' : 'URL guardada.'));
                apply(next);
            }
            catch (err) {
                status.replaceChildren(errorBox(err));
            }
        });
    });
    return { el: h('section', { class: 'card' }, h('h2', { id: 'wh-url' }, 'Dirección'), form), update: () => undefined };
}
function showSecret(result, settings, ...after) {
    if (settings.webhookSecret === undefined)
        return;
    const box = secretBox('Nuevo secreto de firma', settings.webhookSecret, 'webhook-secret');
    result.replaceChildren(box, ...after);
    focusSecret(box);
}
function secretSection(ctx, apply) {
    let configured = false;
    const state = h('p');
    const overlap = h('p', { 'data-field': 'previous-secret' });
    const result = h('div', { 'aria-live': 'polite' });
    const generate = h('button', { type: 'button', 'data-action': 'generate-secret' }, 'Generar secreto');
    const rotate = h('button', { type: 'button', 'data-action': 'rotate-secret' }, 'Rotar secreto');
    const replace = h('button', { type: 'button', class: 'secondary', 'data-action': 'replace-secret' }, 'Reemplazar de inmediato');
    const put = (button, question) => void busy(button, async () => {
        if (question !== null && !(await confirmAction(question, 'Reemplazar secreto')))
            return;
        result.replaceChildren();
        try {
            const next = await ctx.api.put(SETTINGS, { generate: true });
            apply(next);
            showSecret(result, next);
        }
        catch (err) {
            result.replaceChildren(errorBox(err));
        }
    });
    generate.addEventListener('click', () => put(generate, null));
    replace.addEventListener('click', () => put(replace, 'El secreto actual dejará de firmar los webhooks de inmediato: úselo solo si se filtró. ¿Reemplazarlo ahora?'));
    rotate.addEventListener('click', () => void busy(rotate, async () => {
        if (!(await confirmAction('Se generará un secreto nuevo. El actual seguirá firmando los webhooks durante el periodo de transición, para que cambie su receptor sin perder entregas. ¿Rotar el secreto?', 'Rotar secreto')))
            return;
        result.replaceChildren();
        try {
            const next = await ctx.api.post(`${SETTINGS}/rotate-secret`, {});
            apply(next);
            showSecret(result, next, notice('Secreto rotado: cada webhook lleva ahora las dos firmas, la nueva primero.'));
        }
        catch (err) {
            result.replaceChildren(errorBox(err));
        }
    }));
    const el = h('section', { class: 'card' }, h('h2', null, 'Secreto de firma'), state, overlap, h('p', { class: 'hint' }, 'Su receptor lo usa para comprobar la firma HMAC de cada webhook.'), h('div', { class: 'actions' }, generate, rotate, replace), result);
    return {
        el,
        update: (s) => {
            configured = s.secretConfigured;
            state.textContent = configured ? 'Hay un secreto configurado.' : 'Todavía no hay secreto: los webhooks no se pueden firmar.';
            generate.hidden = configured;
            rotate.hidden = !configured;
            replace.hidden = !configured;
            overlap.hidden = s.previousSecretExpiresAt === null;
            overlap.replaceChildren(...(s.previousSecretExpiresAt === null ? [] : ['El secreto anterior sigue firmando hasta ', time(s.previousSecretExpiresAt), '.']));
        },
    };
}
function testResult(r) {
    const a = r.attempt;
    const link = h('p', null, h('a', { href: `#${PATHS.deliveries}/${r.delivery.id}` }, 'Ver la entrega y sus intentos →'));
    if (a === null) {
        return h('div', { class: 'stack', 'data-test-result': 'queued' }, notice('La prueba quedó en cola; su primer intento sale en breve.', 'info'), link);
    }
    const outcome = a.ok
        ? notice(`El receptor respondió ${a.statusCode ?? ''} en ${a.durationMs} ms.`, 'ok')
        : notice(`El envío falló: ${a.error === null ? `respuesta ${a.statusCode ?? 'sin código'}` : deliveryError(a.error)}. Se reintentará según el calendario de reintentos.`, 'bad');
    return h('div', { class: 'stack', 'data-test-result': a.ok ? 'ok' : 'failed' }, outcome, facts([
        ['Entrega', deliveryBadge(r.delivery)],
        ['Código HTTP', orDash(a.statusCode)],
        ['Duración', `${a.durationMs} ms`],
        ['Enviado', time(a.at)],
        a.error === null ? null : ['Error', deliveryError(a.error)],
        a.responseBody === '' ? null : ['Respuesta', h('pre', { class: 'response' }, a.responseBody)],
    ]), link);
}
function testSection(ctx) {
    const explain = h('p');
    const result = h('div', { 'aria-live': 'polite' });
    const send = h('button', { type: 'button', 'data-action': 'send-test' }, 'Enviar webhook de prueba');
    send.addEventListener('click', () => void busy(send, async () => {
        result.replaceChildren(loading('Enviando…'));
        try {
            result.replaceChildren(testResult(await ctx.api.post('/api/webhooks/test', {})));
        }
        catch (err) {
            result.replaceChildren(errorBox(err));
        }
    }));
    return {
        el: h('section', { class: 'card' }, h('h2', null, 'Prueba'), explain, h('div', { class: 'actions' }, send), result),
        update: (s) => {
            send.disabled = s.webhookUrl === null;
            explain.textContent = s.webhookUrl === null
                ? 'Guarde una URL para poder enviar una prueba.'
                : 'Envía un evento de prueba (webhook.test) a la URL guardada y muestra lo que respondió su receptor.';
        },
    };
}
export async function webhooksPage(ctx) {
    const body = h('div', { class: 'stack' }, loading());
    ctx.root.append(body);
    let settings;
    try {
        settings = await ctx.api.get(SETTINGS, ctx.signal);
    }
    catch (err) {
        if (!ctx.signal.aborted)
            body.replaceChildren(errorBox(err));
        return;
    }
    const updated = h('span');
    const sections = [];
    const apply = (s) => {
        for (const section of sections)
            section.update(s);
        updated.replaceChildren(time(s.updatedAt));
    };
    sections.push(urlSection(ctx, settings, apply), secretSection(ctx, apply), testSection(ctx));
    body.replaceChildren(...sections.map((s) => s.el), h('p', { class: 'hint' }, 'Última modificación: ', updated, ' · ', h('a', { href: `#${PATHS.deliveries}` }, 'Ver todas las entregas')));
    apply(settings);
}
