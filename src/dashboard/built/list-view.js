// Built from src/dashboard/client/list-view.ts by `npm run build:dashboard`: edit that file, not this one.
import { poll } from "./context.js";
import { empty, errorBox, h, loading } from "./dom.js";
function focusedKey(container) {
    const active = document.activeElement;
    return active instanceof HTMLElement && container.contains(active) ? active.dataset.focusKey ?? null : null;
}
function restoreFocus(container, key) {
    if (key === null)
        return;
    const again = container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
    (again !== null && !(again instanceof HTMLButtonElement && again.disabled) ? again : container).focus();
}
export function listView(o) {
    const { ctx, trail } = o;
    const results = h('div', { class: 'results', tabindex: '-1' });
    let shown = '';
    let polling = false;
    let inflight = null;
    let latest = 0;
    const pager = (page) => {
        const next = page.nextCursor;
        if (!trail.hasPrevious && next === null)
            return null;
        const go = (move) => () => {
            const key = focusedKey(results);
            move();
            void show(true, key);
        };
        return h('nav', { class: 'pager', 'aria-label': o.pagerLabel }, h('button', { type: 'button', class: 'secondary', 'data-focus-key': 'previous', disabled: !trail.hasPrevious, onclick: go(() => trail.previous()) }, '← Anterior'), h('span', { class: 'page-number' }, `Página ${trail.page}`), h('button', { type: 'button', class: 'secondary', 'data-focus-key': 'next', disabled: next === null, onclick: go(() => next !== null && trail.next(next)) }, 'Siguiente →'));
    };
    async function show(initial, focusKey = null) {
        if (!initial && inflight !== null)
            return true;
        inflight?.abort();
        const controller = new AbortController();
        const leave = () => controller.abort();
        ctx.signal.addEventListener('abort', leave, { once: true });
        inflight = controller;
        const mine = ++latest;
        if (initial) {
            shown = '';
            results.setAttribute('aria-busy', 'true');
            results.replaceChildren(loading());
        }
        let page;
        try {
            page = await o.fetchPage(trail.cursor, controller.signal);
        }
        catch (err) {
            if (mine !== latest)
                return true;
            if (ctx.signal.aborted)
                return false;
            if (initial)
                results.replaceChildren(errorBox(err));
            results.removeAttribute('aria-busy');
            return !initial;
        }
        finally {
            ctx.signal.removeEventListener('abort', leave);
            if (inflight === controller)
                inflight = null;
        }
        if (mine !== latest)
            return true;
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
