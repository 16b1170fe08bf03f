// Built from src/dashboard/client/dom.ts by `npm run build:dashboard`: edit that file, not this one.
import { ApiError } from "./api.js";
import { conflictReason, detailSentence, errorSentence, fieldName } from "./errors.js";
export function h(tag, attrs = null, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs ?? {})) {
        if (typeof value === 'function')
            el.addEventListener(name.replace(/^on/, ''), value);
        else if (value === true)
            el.setAttribute(name, '');
        else if (value !== false && value !== null && value !== undefined)
            el.setAttribute(name, String(value));
    }
    append(el, children);
    return el;
}
export function filterDate(name, value, now = new Date()) {
    const latest = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate())).toISOString().slice(0, 10);
    return h('input', { type: 'date', name, value, min: '2000-01-01', max: latest });
}
function append(el, children) {
    for (const child of children) {
        if (child === null || child === undefined || child === false)
            continue;
        if (Array.isArray(child))
            append(el, child);
        else
            el.append(child instanceof Node ? child : String(child));
    }
}
let ids = 0;
export function uid(prefix) {
    return `${prefix}-${++ids}`;
}
const DATE_TIME = new Intl.DateTimeFormat('es-DO', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
const DAY = new Intl.DateTimeFormat('es-DO', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });
export function dayFirst(format, d) {
    const p = Object.fromEntries(format.formatToParts(d).map((x) => [x.type, x.value]));
    const day = `${p.day}-${p.month}-${p.year}`;
    return p.hour === undefined ? day : `${day} ${p.hour}:${p.minute}:${p.second}`;
}
const MONEY = new Intl.NumberFormat('es-DO', { style: 'currency', currency: 'DOP' });
export function time(iso) {
    if (iso === null || iso === undefined)
        return document.createTextNode('—');
    const d = new Date(iso);
    if (Number.isNaN(d.getTime()))
        return document.createTextNode(iso);
    return h('time', { datetime: iso, title: iso }, dayFirst(DATE_TIME, d));
}
export function dgiiDate(text) {
    const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
    if (m === null)
        return document.createTextNode(text);
    const [, d, mo, y] = m;
    const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    return Number.isNaN(date.getTime()) ? document.createTextNode(text) : h('time', { datetime: `${y}-${mo}-${d}` }, dayFirst(DAY, date));
}
export function dgiiDateTime(text) {
    const m = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}:\d{2}:\d{2})$/.exec(text);
    return m === null ? document.createTextNode(text) : time(`${m[3]}-${m[2]}-${m[1]}T${m[4]}-04:00`);
}
export function money(amount) {
    const digits = amount.replace(/\D/g, '').length;
    return digits > 15 || !/^-?\d+(\.\d+)?$/.test(amount) ? amount : MONEY.format(Number(amount));
}
export function badge(label, tone, value) {
    return h('span', { class: `badge badge-${tone}`, 'data-value': value }, label);
}
export function orDash(v) {
    return v === null || v === undefined || v === '' ? '—' : String(v);
}
export function errorBox(err, fields = {}) {
    if (!(err instanceof ApiError)) {
        return h('div', { class: 'alert alert-bad', role: 'alert' }, h('p', null, 'Ocurrió un error inesperado en la página. Recargue e intente de nuevo.'));
    }
    const details = err.details.map((d) => {
        const name = fieldName(d.path, fields);
        const said = detailSentence(d);
        return h('li', { 'data-path': d.path }, name === null ? h('code', null, d.path) : h('strong', null, name), ': ', said ?? h('span', { lang: 'en' }, d.message));
    });
    let sentence = errorSentence(err.code);
    if (err.code === 'VALIDATION_ERROR' && details.length === 0)
        sentence = null;
    if (sentence === null && err.code.startsWith('HTTP_'))
        sentence = `El servicio respondió con un error inesperado (HTTP ${err.status}).`;
    const conflict = err.code === 'CONFLICT' ? conflictReason(err.message) ?? h('span', { lang: 'en' }, err.message) : null;
    return h('div', { class: 'alert alert-bad', role: 'alert', 'data-code': err.code }, h('p', null, sentence ?? 'El servicio no pudo completar la operación.'), conflict === null ? null : h('p', { 'data-reason': '' }, conflict), details.length === 0 ? null : h('ul', { class: 'details' }, details), sentence !== null ? null : h('p', { class: 'tech' }, 'Respuesta del servicio: ', h('span', { lang: 'en' }, err.message), ' (', h('code', null, err.code), ')'));
}
export function notice(text, tone = 'ok') {
    return h('div', { class: `alert alert-${tone}`, role: 'status', tabindex: '-1' }, h('p', null, text));
}
export function loading(what = 'Cargando…') {
    return h('p', { class: 'loading', role: 'status' }, what);
}
export function empty(text) {
    return h('p', { class: 'empty' }, text);
}
export function field(label, control, hint) {
    control.id ||= uid('f');
    const hintId = hint === undefined ? null : `${control.id}-hint`;
    if (hintId !== null)
        control.setAttribute('aria-describedby', hintId);
    return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintId === null ? null : h('small', { id: hintId, class: 'hint' }, hint));
}
export function select(name, options, selected) {
    return h('select', { name }, options.map(([value, label]) => h('option', { value, selected: value === selected }, label)));
}
export function facts(rows) {
    return h('dl', { class: 'facts' }, rows.map((r) => (r === null ? null : [h('dt', null, r[0]), h('dd', null, r[1])])));
}
export function table(columns, rows, attrs = {}) {
    return h('table', { class: 'grid', ...attrs }, h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', null, rows.map((cells) => h('tr', null, cells.map((cell, i) => h('td', { 'data-label': columns[i] ?? '' }, cell))))));
}
export function secretBox(label, value, id) {
    const input = h('input', { id, type: 'text', readonly: true, value, spellcheck: 'false', autocomplete: 'off', class: 'mono' });
    const status = h('span', { class: 'copy-status', role: 'status' });
    const copy = async () => {
        input.select();
        try {
            await navigator.clipboard.writeText(value);
            status.textContent = 'Copiado.';
        }
        catch {
            status.textContent = 'Seleccionado: cópielo con Ctrl+C.';
        }
    };
    return h('div', { class: 'secret' }, h('label', { for: id }, label), h('div', { class: 'secret-row' }, input, h('button', { type: 'button', class: 'secondary', onclick: () => void copy() }, 'Copiar')), h('p', { class: 'hint' }, 'Cópielo ahora y guárdelo en un lugar seguro: no se volverá a mostrar. ', status));
}
export function focusSecret(box) {
    const input = box.querySelector('input');
    input?.focus();
    input?.select();
}
export function confirmAction(question, confirmLabel) {
    const textId = uid('confirm');
    const cancel = h('button', { type: 'submit', value: 'cancel', class: 'secondary', autofocus: true }, 'Cancelar');
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': textId }, h('form', { method: 'dialog' }, h('p', { id: textId }, question), h('div', { class: 'actions' }, cancel, h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel))));
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
    return new Promise((resolve) => {
        dialog.addEventListener('close', () => {
            resolve(dialog.returnValue === 'confirm');
            dialog.remove();
        }, { once: true });
    });
}
export async function busy(button, work) {
    const focused = document.activeElement === button;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    try {
        return await work();
    }
    finally {
        button.disabled = false;
        button.removeAttribute('aria-busy');
        const now = document.activeElement;
        if (focused && button.isConnected && (now === null || now === document.body || now === button))
            button.focus();
    }
}
