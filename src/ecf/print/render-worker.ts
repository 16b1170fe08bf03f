// A thread of the render pool (render-pool.ts): lays out one PDF per message, off the event
// loop that serves requests.
import { parentPort } from 'node:worker_threads';
import { renderEcfPdf, type PrintFormat, type PrintInput } from './index.ts';
import type { PdfImage } from '../../lib/pdf/image.ts';

export interface RenderRequest {
  input: PrintInput;
  format: PrintFormat;
}

export type RenderAnswer =
  | { ok: true; data: Uint8Array }
  | { ok: false; layout: boolean; message: string };

/** Structured cloning turned the logo's Buffers into plain Uint8Arrays; the writer wants Buffers. */
function asBuffers(logo: PdfImage | null | undefined): PdfImage | null {
  if (logo === null || logo === undefined) return null;
  const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return { ...logo, data: buffer(logo.data), alpha: logo.alpha === null ? null : buffer(logo.alpha) };
}

parentPort?.on('message', (request: RenderRequest) => {
  let answer: RenderAnswer;
  try {
    const data = renderEcfPdf({ ...request.input, logo: asBuffers(request.input.logo) }, request.format);
    answer = { ok: true, data };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    answer = { ok: false, layout: err instanceof RangeError || err instanceof TypeError, message };
  }
  parentPort?.postMessage(answer);
});
