import { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.ts';
import { FairQueue } from '../../lib/fair-queue.ts';
import type { PrintFormat, PrintInput } from './index.ts';
import type { DraftFormat } from './draft.ts';
import type { EcfObject } from '../types.ts';
import type { RenderAnswer, RenderRequest } from './render-worker.ts';

// Laying out a PDF takes milliseconds a page, synchronously: a hundred large documents asked
// for at once held the event loop for seconds, and every other tenant's requests with it.
// Renders run on worker threads instead, one at a time each. Those waiting are served
// round-robin by owner (the tenant), each owner with at most `maxPerOwner` renders queued
// or running (429 beyond, for it alone) and `maxQueue` in all (503 beyond); a render that
// outlasts `timeoutMs` has its thread ended and replaced (503).

const ENTRY = new URL('./render-worker.ts', import.meta.url);

interface Job {
  request: RenderRequest;
  owner: string;
  resolve(data: Buffer): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

export interface RenderPoolOptions {
  threads?: number;
  maxQueue?: number;
  maxPerOwner?: number;
  timeoutMs?: number;
  /**
   * A thread idle this long is ended (a new one starts when needed). Long: a thread costs tens
   * of MiB, and ending and starting one for every printout a few minutes apart would churn them.
   */
  idleMs?: number;
}

export class RenderPool {
  private readonly threads: number;
  private readonly maxQueue: number;
  private readonly maxPerOwner: number;
  private readonly timeoutMs: number;
  private readonly idleMs: number;
  private readonly queue = new FairQueue<Job>();
  private readonly slots: Slot[] = [];
  private readonly perOwner = new Map<string, number>();
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly counts = { renders: 0, overruns: 0, started: 0 };

  constructor(options: RenderPoolOptions = {}) {
    this.threads = options.threads ?? 1;
    this.maxQueue = options.maxQueue ?? 64;
    this.maxPerOwner = options.maxPerOwner ?? 4;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.idleMs = options.idleMs ?? 300_000;
  }

  /** The PDF of `input`, laid out on a pool thread in `owner`'s turn. */
  render(input: PrintInput, format: PrintFormat, owner: string): Promise<Buffer> {
    return this.enqueue({ kind: 'document', input, format }, owner);
  }

  /** An unsigned draft's PDF (ecf/print/draft.ts), likewise. */
  renderDraft(tipo: number, ecf: EcfObject, format: DraftFormat, owner: string): Promise<Buffer> {
    return this.enqueue({ kind: 'draft', tipo, ecf, format }, owner);
  }

  private enqueue(request: RenderRequest, owner: string): Promise<Buffer> {
    if (this.closed) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    const own = this.perOwner.get(owner) ?? 0;
    if (own >= this.maxPerOwner) {
      return Promise.reject(new AppError('RATE_LIMITED', `This account already has ${own} documents being printed; wait for them to finish`, { headers: { 'retry-after': '2' } }));
    }
    if (this.queue.size >= this.maxQueue) {
      return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'Too many documents are being printed; try again shortly', { headers: { 'retry-after': '2' } }));
    }
    this.perOwner.set(owner, own + 1);
    const done = () => {
      const left = (this.perOwner.get(owner) ?? 1) - 1;
      if (left > 0) this.perOwner.set(owner, left);
      else this.perOwner.delete(owner);
    };
    return new Promise<Buffer>((resolve, reject) => {
      this.queue.push(owner, {
        request,
        owner,
        resolve: (data) => { done(); resolve(data); },
        reject: (err) => { done(); reject(err); },
      });
      this.pump();
    });
  }

  stats(): { renders: number; overruns: number; started: number; live: number; waiting: number } {
    return { ...this.counts, live: this.slots.length, waiting: this.queue.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    for (const job of this.queue.drain()) job.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      if (slot.timer !== null) clearTimeout(slot.timer);
      slot.job?.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private pump(): void {
    while (this.queue.size > 0 && !this.closed) {
      let slot = this.slots.find((s) => s.job === null);
      if (slot === undefined) {
        if (this.slots.length >= this.threads) return;
        slot = this.start();
      }
      const job = this.queue.take();
      if (job === undefined) return;
      this.assign(slot, job);
    }
    this.scheduleIdle();
  }

  private start(): Slot {
    const worker = new Worker(ENTRY, { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    const slot: Slot = { worker, job: null, timer: null };
    this.slots.push(slot);
    this.counts.started++;
    worker.on('message', (answer: RenderAnswer) => this.answered(slot, answer));
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', () => this.lost(slot, new Error('the render thread exited')));
    return slot;
  }

  private assign(slot: Slot, job: Job): void {
    // A thread at work keeps the process alive until it answers; an idle one never does.
    slot.worker.ref();
    slot.job = job;
    slot.timer = setTimeout(() => this.overran(slot), this.timeoutMs);
    slot.worker.postMessage(job.request);
  }

  private answered(slot: Slot, answer: RenderAnswer): void {
    const job = slot.job;
    this.release(slot);
    if (job === null) return;
    this.counts.renders++;
    if (answer.ok) job.resolve(Buffer.from(answer.data.buffer, answer.data.byteOffset, answer.data.byteLength));
    else if (answer.layout) job.reject(new AppError('VALIDATION_ERROR', answer.message));
    else job.reject(new Error(`rendering failed: ${answer.message}`));
    this.pump();
  }

  private overran(slot: Slot): void {
    this.counts.overruns++;
    const job = slot.job;
    this.remove(slot);
    void slot.worker.terminate();
    job?.reject(new AppError('SERVICE_UNAVAILABLE', `The document took over ${this.timeoutMs} ms to print`, { headers: { 'retry-after': '5' } }));
    this.pump();
  }

  private lost(slot: Slot, err: Error): void {
    if (!this.slots.includes(slot)) return;
    const job = slot.job;
    this.remove(slot);
    job?.reject(err);
    this.pump();
  }

  private release(slot: Slot): void {
    slot.worker.unref();
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
  }

  private remove(slot: Slot): void {
    this.release(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  /** Ends the threads once nothing has been printed for idleMs. */
  private scheduleIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    if (this.closed || this.slots.length === 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.queue.size > 0 || this.slots.some((s) => s.job !== null)) return this.scheduleIdle();
      for (const slot of this.slots.splice(0)) void slot.worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
