// Built from src/dashboard/client/invoice-fields.ts by `npm run build:dashboard`: edit that file, not this one.
import { h, uid } from "./dom.js";
export function slot(label, control, hint) {
    control.id ||= uid('inv');
    const error = h('small', { id: `${control.id}-error`, class: 'field-error', 'data-error': '' });
    const hintEl = hint === undefined ? null : h('small', { id: `${control.id}-hint`, class: 'hint' }, hint);
    control.setAttribute('aria-describedby', [hintEl?.id, error.id].filter((x) => x !== undefined).join(' '));
    const wrap = h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl, error);
    return { label, wrap, control, error };
}
export function setError(s, message) {
    s.error.replaceChildren(message ?? '');
    if (message === null)
        s.control.removeAttribute('aria-invalid');
    else
        s.control.setAttribute('aria-invalid', 'true');
}
export const input = (attrs) => h('input', { type: 'text', ...attrs });
