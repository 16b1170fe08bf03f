import type { CursorTrail, PageContext } from './context.ts';
import { poll } from './context.ts';
import { empty, errorBox, h, loading } from './dom.ts';
import type { Page } from './types.ts';

// A keyset-paged list that keeps itself current: while some item on screen can still
// change (a document in process, a pending delivery) it reloads the same page every few
// seconds, redrawing only when the answer differs and keeping the keyboard focus in place.

export interface ListViewOptions<T> {
  ctx: PageContext;
  trail: CursorTrail;
  fetchPage(cursor: string | null, signal: AbortSignal): Promise<Page<T>>;
  render(items: readonly T[]): HTMLElement;
  emptyText: string;
  changing(items: readonly T[]): boolean;
  /** Accessible name of the pager, e.g. "Páginas de documentos". */
  pagerLabel: string;
  refreshMs?: number;
}

function focusedKey(container: HTMLElement): string | null {
  const active = document.activeElement;
  return active instanceof HTMLElement && container.contains(active) ? active.dataset.focusKey ?? null : null;
}

function restoreFocus(container: HTMLElement, key: string | null): void {
  if (key === null) return;
  const again = container.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(key)}"]`);
  (again !== null && !(again instanceof HTMLButtonElement && again.disabled) ? again : container).focus();
}

export function listView<T>(o: ListViewOptions<T>): HTMLElement {
  const { ctx, trail } = o;
  const results = h('div', { class: 'results', tabindex: '-1' });
  let shown = '';
  let polling = false;
  // One load at a time. A load the person asked for (a page, new filters) cancels whatever
  // is in flight, and a background refresh never starts while a load is out: an older
  // answer arriving last must not be drawn under the newer page's number.
  let inflight: AbortController | null = null;
  let latest = 0;

  const pager = (page: Page<T>): HTMLElement | null => {
    const next = page.nextCursor;
    if (!trail.hasPrevious && next === null) return null;
    const go = (move: () => void) => () => {
      const key = focusedKey(results);
      move();
      void show(true, key);
    };
    return h('nav', { class: 'pager', 'aria-label': o.pagerLabel },
      h('button', { type: 'button', class: 'secondary', 'data-focus-key': 'previous', disabled: !trail.hasPrevious, onclick: go(() => trail.previous()) }, '← Anterior'),
      h('span', { class: 'page-number' }, `Página ${trail.page}`),
      h('button', { type: 'button', class: 'secondary', 'data-focus-key': 'next', disabled: next === null, onclick: go(() => next !== null && trail.next(next)) }, 'Siguiente →'),
    );
  };

  /** Loads the trail's current page and draws it; answers whether to keep refreshing. */
  async function show(initial: boolean, focusKey: string | null = null): Promise<boolean> {
    if (!initial && inflight !== null) return true;
    inflight?.abort();
    const controller = new AbortController();
    const leave = (): void => controller.abort();
    ctx.signal.addEventListener('abort', leave, { once: true });
    inflight = controller;
    const mine = ++latest;
    if (initial) {
      shown = '';
      results.setAttribute('aria-busy', 'true');
      results.replaceChildren(loading());
    }
    let page: Page<T>;
    try {
      page = await o.fetchPage(trail.cursor, controller.signal);
    } catch (err) {
      if (mine !== latest) return true;
      if (ctx.signal.aborted) return false;
      // A failed background refresh keeps what is on screen; a failed load says why.
      if (initial) results.replaceChildren(errorBox(err));
      results.removeAttribute('aria-busy');
      return !initial;
    } finally {
      ctx.signal.removeEventListener('abort', leave);
      if (inflight === controller) inflight = null;
    }
    // Superseded: the newer load draws, and keeps the refresh going if it needs to.
    if (mine !== latest) return true;
    results.removeAttribute('aria-busy');
    const snapshot = JSON.stringify([trail.page, page]);
    if (snapshot !== shown) {
      shown = snapshot;
      const key = focusKey ?? focusedKey(results);
      const text = trail.hasPrevious ? 'No hay más resultados.' : o.emptyText;
      results.replaceChildren(page.items.length === 0 ? empty(text) : o.render(page.items), (page.items.length === 0 && !trail.hasPrevious) ? '' : pager(page) ?? '');
      restoreFocus(results, key);
    }
    const again = o.changing(page.items);
    if (again && !polling) {
      polling = true;
      poll(ctx.signal, o.refreshMs ?? 2000, async () => (polling = await show(false)));
    }
    return again;
  }

  void show(true);
  return results;
}
