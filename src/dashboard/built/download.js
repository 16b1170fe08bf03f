// Built from src/dashboard/client/download.ts by `npm run build:dashboard`: edit that file, not this one.
import { errorBox, h } from "./dom.js";
export async function saveAs(ctx, path, filename, type, status) {
    status.replaceChildren();
    try {
        const blob = await ctx.api.download(path);
        const href = URL.createObjectURL(new Blob([blob], { type }));
        const a = h('a', { href, download: filename, hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(href), 10_000);
    }
    catch (err) {
        status.replaceChildren(errorBox(err));
    }
}
export async function imageData(ctx, path) {
    const blob = await ctx.api.download(path);
    return new Promise((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('no image')));
        reader.onerror = () => reject(reader.error ?? new Error('no image'));
        reader.readAsDataURL(blob);
    });
}
