// Built from src/dashboard/client/invoice-submit.ts by `npm run build:dashboard`: edit that file, not this one.
import { ApiError } from "./api.js";
import { PATHS } from "./context.js";
import { busy, errorBox, h } from "./dom.js";
import { detailSentence } from "./errors.js";
import { setError } from "./invoice-fields.js";
function newKey() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return `panel-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
export function wireSubmit(ctx, parts) {
    const { form, emit, preview, status, slots } = parts;
    const slotOf = (path) => {
        let best = null;
        for (const [key, s] of slots()) {
            const under = path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
            if (under && (best === null || key.length > best.key.length))
                best = { key, s };
        }
        if (best === null)
            return null;
        const line = /^ECF\.DetallesItems\.Item\[(\d+)\]/.exec(best.key);
        return { s: best.s, name: line === null ? best.s.label : `Línea ${Number(line[1]) + 1} · ${best.s.label}` };
    };
    const clearErrors = () => {
        for (const [, s] of slots())
            setError(s, null);
    };
    const precheck = () => {
        clearErrors();
        const ok = parts.validate();
        if (!ok) {
            const first = form.querySelector('[aria-invalid="true"]') ?? null;
            first?.focus();
        }
        return ok;
    };
    const showServerError = (err) => {
        if (err instanceof ApiError) {
            const names = {};
            for (const d of err.details) {
                const found = slotOf(d.path);
                if (found === null)
                    continue;
                names[d.path] = found.name;
                setError(found.s, detailSentence(d) ?? h('span', { lang: 'en' }, d.message));
            }
            status.replaceChildren(errorBox(err, names));
            const first = form.querySelector('[aria-invalid="true"]');
            (first ?? status.querySelector('[role="alert"]'))?.focus();
            return;
        }
        status.replaceChildren(errorBox(err));
    };
    let key = newKey();
    let keyedBody = '';
    form.addEventListener('submit', (ev) => {
        ev.preventDefault();
        if (emit.disabled)
            return;
        void busy(emit, async () => {
            status.replaceChildren();
            if (!precheck())
                return;
            const body = parts.body();
            const text = JSON.stringify(body);
            if (text !== keyedBody) {
                key = newKey();
                keyedBody = text;
            }
            try {
                const doc = await ctx.api.post(`/${ctx.env}/documentos-ecf`, body, { 'Idempotency-Key': key });
                ctx.navigate(`#${PATHS.documents}/${doc.internalTrackId}`);
            }
            catch (err) {
                showServerError(err);
            }
        });
    });
    preview.addEventListener('click', () => void busy(preview, async () => {
        status.replaceChildren();
        if (!precheck())
            return;
        const tab = window.open('', '_blank');
        try {
            const blob = await ctx.api.download(`/${ctx.env}/documentos-ecf/borrador/pdf`, { body: parts.body() });
            const href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
            if (tab !== null)
                tab.location.href = href;
            setTimeout(() => URL.revokeObjectURL(href), 60_000);
        }
        catch (err) {
            tab?.close();
            showServerError(err);
        }
    }));
}
