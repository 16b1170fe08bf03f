import { h, uid } from './dom.ts';

// The invoice form's fields: each a labelled control with its hint and the slot where what is
// wrong with it is shown.

/** A labelled control with a slot under it for what is wrong with it (the server's 422 details included). */
export interface Slot {
  label: string;
  wrap: HTMLElement;
  control: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
}

export function slot(label: string, control: HTMLInputElement | HTMLSelectElement, hint?: string): Slot {
  control.id ||= uid('inv');
  const error = h('small', { id: `${control.id}-error`, class: 'field-error', 'data-error': '' });
  const hintEl = hint === undefined ? null : h('small', { id: `${control.id}-hint`, class: 'hint' }, hint);
  control.setAttribute('aria-describedby', [hintEl?.id, error.id].filter((x) => x !== undefined).join(' '));
  const wrap = h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl, error);
  return { label, wrap, control, error };
}

export function setError(s: Slot, message: Node | string | null): void {
  s.error.replaceChildren(message ?? '');
  if (message === null) s.control.removeAttribute('aria-invalid');
  else s.control.setAttribute('aria-invalid', 'true');
}

export const input = (attrs: Record<string, string | number | boolean>): HTMLInputElement => h('input', { type: 'text', ...attrs });
