import { ApiError } from './api.ts';
import { PATHS, type PageContext } from './context.ts';
import { busy, errorBox, h } from './dom.ts';
import { detailSentence } from './errors.ts';
import { setError, type Slot } from './invoice-fields.ts';

// The invoice form's two ways out: Emitir posts the body to POST /{env}/documentos-ecf with an
// Idempotency-Key tied to the body (a double click replays the one emission), then opens the
// new document; "Vista previa (PDF)" draws the draft in a new tab. Both check first what the
// page can tell, and put a 422's details on the fields they name.

export interface InvoiceSubmit {
  form: HTMLFormElement;
  emit: HTMLButtonElement;
  preview: HTMLButtonElement;
  /** Where the outcome (an error box) is shown. */
  status: HTMLElement;
  /** Every field under the path of the 422 details that name it. */
  slots: () => [string, Slot][];
  /** Marks what the page can tell is wrong before asking the server; false when something is. */
  validate: () => boolean;
  body: () => { ECF: Record<string, unknown> };
}

/** A random Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `panel-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function wireSubmit(ctx: PageContext, parts: InvoiceSubmit): void {
  const { form, emit, preview, status, slots } = parts;

  /** The slot a 422 detail's path names: the longest registered path it starts with. */
  const slotOf = (path: string): { s: Slot; name: string } | null => {
    let best: { key: string; s: Slot } | null = null;
    for (const [key, s] of slots()) {
      const under = path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
      if (under && (best === null || key.length > best.key.length)) best = { key, s };
    }
    if (best === null) return null;
    const line = /^ECF\.DetallesItems\.Item\[(\d+)\]/.exec(best.key);
    return { s: best.s, name: line === null ? best.s.label : `Línea ${Number(line[1]) + 1} · ${best.s.label}` };
  };
  const clearErrors = (): void => {
    for (const [, s] of slots()) setError(s, null);
  };

  /** What the page can tell before asking the server; false after marking the fields. */
  const precheck = (): boolean => {
    clearErrors();
    const ok = parts.validate();
    if (!ok) {
      const first = form.querySelector<HTMLElement>('[aria-invalid="true"]') ?? null;
      first?.focus();
    }
    return ok;
  };

  const showServerError = (err: unknown): void => {
    if (err instanceof ApiError) {
      const names: Record<string, string> = {};
      for (const d of err.details) {
        const found = slotOf(d.path);
        if (found === null) continue;
        names[d.path] = found.name;
        setError(found.s, detailSentence(d) ?? h('span', { lang: 'en' }, d.message));
      }
      status.replaceChildren(errorBox(err, names));
      const first = form.querySelector<HTMLElement>('[aria-invalid="true"]');
      (first ?? status.querySelector<HTMLElement>('[role="alert"]'))?.focus();
      return;
    }
    status.replaceChildren(errorBox(err));
  };

  let key = newKey();
  let keyedBody = '';
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (emit.disabled) return;
    void busy(emit, async () => {
      status.replaceChildren();
      if (!precheck()) return;
      const body = parts.body();
      // One key per body: a second click (or a retry after a network error) replays the first
      // emission; a corrected body after a 422 is a new request.
      const text = JSON.stringify(body);
      if (text !== keyedBody) {
        key = newKey();
        keyedBody = text;
      }
      try {
        const doc = await ctx.api.post<{ internalTrackId: string }>(`/${ctx.env}/documentos-ecf`, body, { 'Idempotency-Key': key });
        ctx.navigate(`#${PATHS.documents}/${doc.internalTrackId}`);
      } catch (err) {
        showServerError(err);
      }
    });
  });

  preview.addEventListener('click', () => void busy(preview, async () => {
    status.replaceChildren();
    if (!precheck()) return;
    const tab = window.open('', '_blank');
    try {
      const blob = await ctx.api.download(`/${ctx.env}/documentos-ecf/borrador/pdf`, { body: parts.body() });
      const href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
      if (tab !== null) tab.location.href = href;
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
    } catch (err) {
      tab?.close();
      showServerError(err);
    }
  }));
}
