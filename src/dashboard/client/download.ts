import type { PageContext } from './context.ts';
import { errorBox, h } from './dom.ts';

// Files the API serves behind the session's credentials: a plain link could not send them,
// so each is fetched and handed to the browser as a download.

export async function saveAs(ctx: PageContext, path: string, filename: string, type: string, status: HTMLElement): Promise<void> {
  status.replaceChildren();
  try {
    const blob = await ctx.api.download(path);
    const href = URL.createObjectURL(new Blob([blob], { type }));
    const a = h('a', { href, download: filename, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  } catch (err) {
    status.replaceChildren(errorBox(err));
  }
}

/** An image the API serves (the timbre QR) as a data: URL, the only kind the page's CSP lets an <img> show. */
export async function imageData(ctx: PageContext, path: string): Promise<string> {
  const blob = await ctx.api.download(path);
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('no image')));
    reader.onerror = () => reject(reader.error ?? new Error('no image'));
    reader.readAsDataURL(blob);
  });
}
