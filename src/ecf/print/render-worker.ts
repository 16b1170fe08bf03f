// A thread of the render pool (render-pool.ts): lays out one PDF per message, off the event
// loop that serves requests.
import { parentPort } from 'node:worker_threads';
import { renderEcfPdf, type PrintFormat, type PrintInput } from './index.ts';
import { renderDraftPdf, type DraftFormat } from './draft.ts';
import type { EcfObject } from '../types.ts';
import { AppError } from '../../errors.ts';
import type { PdfImage } from '../../lib/pdf/image.ts';

/** A stored document's printout, or an unsigned draft's (marked BORRADOR, never numbered). */
export type RenderRequest =
  | { kind: 'document'; input: PrintInput; format: PrintFormat }
  | { kind: 'draft'; tipo: number; ecf: EcfObject; format: DraftFormat };

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
    const data = request.kind === 'draft'
      ? renderDraftPdf(request.tipo, request.ecf, request.format)
      : renderEcfPdf({ ...request.input, logo: asBuffers(request.input.logo) }, request.format);
    answer = { ok: true, data };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Data the writer cannot lay out is the request's fault (422), not the service's.
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') answer = { ok: false, layout: true, message };
    else if (err instanceof RangeError || err instanceof TypeError) answer = { ok: false, layout: true, message: `This document cannot be printed: ${message}` };
    else answer = { ok: false, layout: false, message };
  }
  parentPort?.postMessage(answer);
});
