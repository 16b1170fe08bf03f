import { ApiError } from './api.ts';
import { conflictReason, detailSentence, errorSentence, fieldName } from './errors.ts';
import type { Tone } from './labels.ts';

// Building the DOM without HTML strings: every text goes through textContent, so nothing
// the server or a user sends can become markup (the CSP's Trusted Types enforce it).

export type Child = Node | string | number | null | undefined | false | readonly Child[];
type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue | ((ev: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/**
 * A date input of a filter, bounded as the API bounds the dates a request may name (src/lib/dates.ts):
 * from 2000-01-01 to a year after today (UTC), so the browser's picker offers no date the API
 * would answer 422.
 */
export function filterDate(name: string, value: string, now = new Date()): HTMLInputElement {
  const latest = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate())).toISOString().slice(0, 10);
  return h('input', { type: 'date', name, value, min: '2000-01-01', max: latest });
}

function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

let ids = 0;
export function uid(prefix: string): string {
  return `${prefix}-${++ids}`;
}

// Dates as dd-mm-aaaa (the way DGII and Dominican accountants write them), times on a 24-hour clock.
const DATE_TIME = new Intl.DateTimeFormat('es-DO', { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
const DAY = new Intl.DateTimeFormat('es-DO', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });

/** dd-mm-aaaa, and HH:mm:ss after it when the format has a time. */
export function dayFirst(format: Intl.DateTimeFormat, d: Date): string {
  const p = Object.fromEntries(format.formatToParts(d).map((x) => [x.type, x.value]));
  const day = `${p.day}-${p.month}-${p.year}`;
  return p.hour === undefined ? day : `${day} ${p.hour}:${p.minute}:${p.second}`;
}
const MONEY = new Intl.NumberFormat('es-DO', { style: 'currency', currency: 'DOP' });

/** An ISO instant in the reader's time zone; the exact value stays in `datetime`. */
export function time(iso: string | null | undefined): Node {
  if (iso === null || iso === undefined) return document.createTextNode('—');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return document.createTextNode(iso);
  return h('time', { datetime: iso, title: iso }, dayFirst(DATE_TIME, d));
}

/** A calendar date as DGII writes it (dd-MM-yyyy), shown like the page's other dates, with no time zone to shift it. */
export function dgiiDate(text: string): Node {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
  if (m === null) return document.createTextNode(text);
  const [, d, mo, y] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return Number.isNaN(date.getTime()) ? document.createTextNode(text) : h('time', { datetime: `${y}-${mo}-${d}` }, dayFirst(DAY, date));
}

/** DGII's dd-MM-yyyy HH:mm:ss is the Dominican clock, UTC−4 all year (no daylight saving). */
export function dgiiDateTime(text: string): Node {
  const m = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}:\d{2}:\d{2})$/.exec(text);
  return m === null ? document.createTextNode(text) : time(`${m[3]}-${m[2]}-${m[1]}T${m[4]}-04:00`);
}

/** Amounts arrive as decimal strings; beyond 15 digits a float would round them, so they show as sent. */
export function money(amount: string): string {
  const digits = amount.replace(/\D/g, '').length;
  return digits > 15 || !/^-?\d+(\.\d+)?$/.test(amount) ? amount : MONEY.format(Number(amount));
}

export function badge(label: string, tone: Tone, value: string): HTMLElement {
  return h('span', { class: `badge badge-${tone}`, 'data-value': value }, label);
}

export function orDash(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === '' ? '—' : String(v);
}

/**
 * The error envelope in words: a Spanish sentence for its code, and each detail of a 422
 * under the name its field has on the page (`fields` renames them for one form). The
 * server's English message is shown only when the page has no sentence of its own.
 */
export function errorBox(err: unknown, fields: Readonly<Record<string, string>> = {}): HTMLElement {
  if (!(err instanceof ApiError)) {
    return h('div', { class: 'alert alert-bad', role: 'alert' }, h('p', null, 'Ocurrió un error inesperado en la página. Recargue e intente de nuevo.'));
  }
  const details = err.details.map((d) => {
    const name = fieldName(d.path, fields);
    const said = detailSentence(d);
    return h('li', { 'data-path': d.path },
      name === null ? h('code', null, d.path) : h('strong', null, name), ': ',
      said ?? h('span', { lang: 'en' }, d.message));
  });
  let sentence = errorSentence(err.code);
  if (err.code === 'VALIDATION_ERROR' && details.length === 0) sentence = null;
  if (sentence === null && err.code.startsWith('HTTP_')) sentence = `El servicio respondió con un error inesperado (HTTP ${err.status}).`;
  // A conflict's sentence is general; what stood in the way is in its message.
  const conflict = err.code === 'CONFLICT' ? conflictReason(err.message) ?? h('span', { lang: 'en' }, err.message) : null;
  return h('div', { class: 'alert alert-bad', role: 'alert', 'data-code': err.code },
    h('p', null, sentence ?? 'El servicio no pudo completar la operación.'),
    conflict === null ? null : h('p', { 'data-reason': '' }, conflict),
    details.length === 0 ? null : h('ul', { class: 'details' }, details),
    sentence !== null ? null : h('p', { class: 'tech' }, 'Respuesta del servicio: ', h('span', { lang: 'en' }, err.message), ' (', h('code', null, err.code), ')'),
  );
}

/** A message; tabindex -1 lets a page move the focus to it when the control that led here is gone. */
export function notice(text: string, tone: Tone = 'ok'): HTMLElement {
  return h('div', { class: `alert alert-${tone}`, role: 'status', tabindex: '-1' }, h('p', null, text));
}

export function loading(what = 'Cargando…'): HTMLElement {
  return h('p', { class: 'loading', role: 'status' }, what);
}

export function empty(text: string): HTMLElement {
  return h('p', { class: 'empty' }, text);
}

/** A label and its control, tied together by id. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  control.id ||= uid('f');
  const hintId = hint === undefined ? null : `${control.id}-hint`;
  if (hintId !== null) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintId === null ? null : h('small', { id: hintId, class: 'hint' }, hint));
}

export function select(name: string, options: readonly (readonly [string, string])[], selected: string): HTMLSelectElement {
  return h('select', { name }, options.map(([value, label]) => h('option', { value, selected: value === selected }, label)));
}

/** Two-column facts about one thing; rows with a null value are left out. */
export function facts(rows: readonly (readonly [string, Child] | null)[]): HTMLElement {
  return h('dl', { class: 'facts' }, rows.map((r) => (r === null ? null : [h('dt', null, r[0]), h('dd', null, r[1])])));
}

/** A table that becomes a list of cards on narrow screens (each cell shows its column name). */
export function table(columns: readonly string[], rows: readonly (readonly Child[])[], attrs: Attrs = {}): HTMLElement {
  return h('table', { class: 'grid', ...attrs },
    h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, rows.map((cells) => h('tr', null, cells.map((cell, i) => h('td', { 'data-label': columns[i] ?? '' }, cell))))),
  );
}

/** A secret shown once: a read-only field with a copy button and the warning that goes with it. */
export function secretBox(label: string, value: string, id: string): HTMLElement {
  const input = h('input', { id, type: 'text', readonly: true, value, spellcheck: 'false', autocomplete: 'off', class: 'mono' });
  const status = h('span', { class: 'copy-status', role: 'status' });
  const copy = async (): Promise<void> => {
    input.select();
    try {
      await navigator.clipboard.writeText(value);
      status.textContent = 'Copiado.';
    } catch {
      status.textContent = 'Seleccionado: cópielo con Ctrl+C.';
    }
  };
  return h('div', { class: 'secret' },
    h('label', { for: id }, label),
    h('div', { class: 'secret-row' }, input, h('button', { type: 'button', class: 'secondary', onclick: () => void copy() }, 'Copiar')),
    h('p', { class: 'hint' }, 'Cópielo ahora y guárdelo en un lugar seguro: no se volverá a mostrar. ', status),
  );
}

/** Puts the focus on a secret just shown, selected, so Ctrl+C copies it at once. */
export function focusSecret(box: HTMLElement): void {
  const input = box.querySelector('input');
  input?.focus();
  input?.select();
}

/** A modal question; resolves true only when the person confirms. Escape or Cancelar is false. */
export function confirmAction(question: string, confirmLabel: string): Promise<boolean> {
  const textId = uid('confirm');
  const cancel = h('button', { type: 'submit', value: 'cancel', class: 'secondary', autofocus: true }, 'Cancelar');
  const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': textId },
    h('form', { method: 'dialog' },
      h('p', { id: textId }, question),
      h('div', { class: 'actions' }, cancel, h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel)),
    ),
  );
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

/**
 * Runs `work` with the button disabled and marked busy, so a double click sends one request.
 * A disabled button loses the focus; it gets it back unless the work moved it somewhere.
 */
export async function busy<T>(button: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  const focused = document.activeElement === button;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    const now = document.activeElement;
    if (focused && button.isConnected && (now === null || now === document.body || now === button)) button.focus();
  }
}
