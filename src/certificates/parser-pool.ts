import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import { FairQueue } from '../lib/fair-queue.ts';
import { quickReject, type Pkcs12ErrorCode } from './pkcs12.ts';

// parsePkcs12 is synchronous and, on a hostile file, may spend its whole work budget (over a
// second of key derivation) before giving up. Uploads come from any tenant, so parses run on
// worker threads: the event loop keeps serving everyone else, a parse that overruns is
// terminated with its thread, and only `size` run at once.
//
// Starting a thread is slow (a fresh V8 instance loads the parser), so threads are kept
// warm: each handles one parse at a time and, once idle for `idleMs`, is ended. They are
// unref'd, so an idle pool never keeps the process alive. A thread terminated on overrun or
// lost to a crash is replaced at once, so the next upload does not pay for the hostile one.
//
// Waiting parses queue per owner (the tenant) and are served round-robin, and each owner may
// have only `maxPerOwner` in the pool at once (429 beyond it, for that owner alone): a tenant
// uploading many files waits for its own, never makes another's upload fail, and another's
// upload waits at most for the parses already running and one turn of each other owner.

export interface WorkerInput {
  file: Uint8Array;
  password: string;
}

export type WorkerAnswer =
  | { ok: true; privateKeyDer: Buffer; certificateDer: Buffer; intermediatesDer: Buffer[] }
  | { ok: false; code: Pkcs12ErrorCode; message: string };

/** What a parser thread posts: once `ready` when loaded, then one `answer` per input. */
export type WorkerMessage = { type: 'ready' } | { type: 'answer'; answer: WorkerAnswer };

export interface ParserPoolOptions {
  /** Threads, and so parses at once. */
  size?: number;
  /** Parses that may wait for a thread, all owners together; beyond this an upload is refused with 503. */
  maxQueue?: number;
  /** Parses one owner may have in the pool (running or waiting); beyond this its uploads get 429. */
  maxPerOwner?: number;
  /** A parse still running after this long is terminated (from when its thread took it). */
  timeoutMs?: number;
  /** An idle thread is ended after this long. */
  idleMs?: number;
}

export interface ParserPoolStats {
  /** Threads started since the pool was made. */
  started: number;
  /** Threads alive now: starting, idle or parsing. */
  live: number;
  idle: number;
  busy: number;
  waiting: number;
  /** Answers received from threads. */
  parses: number;
  /** Threads terminated because a parse overran. */
  overruns: number;
  /** Threads that died on their own. */
  crashes: number;
  /** Threads whose exit Node has reported, however they ended. */
  exited: number;
}

// Node strips the types of a worker's .ts entry as it does the main module's.
const ENTRY = new URL('./pkcs12-worker.ts', import.meta.url);

interface Job {
  input: WorkerInput;
  resolve: (answer: WorkerAnswer) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy';
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

const tooLong = () => new AppError('SERVICE_UNAVAILABLE', 'Reading the certificate file took too long; try again later');
/** How long one file may take to parse before its worker is ended. */
export const PARSE_TIMEOUT_MS = 20_000;

const ownerBusy = (n: number) => new AppError('RATE_LIMITED', `This account already has ${n} certificate files being read; wait for them to finish`, { headers: { 'retry-after': '5' } });
const busy = () => new AppError('SERVICE_UNAVAILABLE', 'Too many certificate uploads are being processed; try again shortly', { headers: { 'retry-after': '5' } });

export class ParserPool {
  private readonly size: number;
  private readonly maxQueue: number;
  private readonly maxPerOwner: number;
  private readonly timeoutMs: number;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Job>();
  /** Parses each owner has in the pool, running or waiting. */
  private readonly perOwner = new Map<string, number>();
  private closed = false;
  private readonly counts = { started: 0, parses: 0, overruns: 0, crashes: 0, exited: 0 };

  constructor(options: ParserPoolOptions = {}) {
    this.size = options.size ?? 2;
    this.maxQueue = options.maxQueue ?? 20;
    this.maxPerOwner = options.maxPerOwner ?? 4;
    this.timeoutMs = options.timeoutMs ?? PARSE_TIMEOUT_MS;
    this.idleMs = options.idleMs ?? 60_000;
  }

  /**
   * parsePkcs12 on a pool thread; files that are obviously not PKCS#12 are answered here.
   * `owner` (the tenant) is whose turn it takes in the queue.
   */
  async parse(file: Buffer, password: string, owner = ''): Promise<WorkerAnswer> {
    const refused = quickReject(file);
    if (refused !== undefined) return { ok: false, code: refused.code, message: refused.message };
    if (this.closed) throw new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down');
    const own = this.perOwner.get(owner) ?? 0;
    if (own >= this.maxPerOwner) throw ownerBusy(own);
    // Parsing plus waiting: `size` may parse and `maxQueue` more wait, whether or not their thread has started yet.
    // A tenant with nothing outstanding may still wait beyond that, in a reserve as large again:
    // tenants that fill the queue cannot turn away one that has had no turn yet (each takes at
    // most maxPerOwner, and the queue serves them round-robin).
    const outstanding = this.slots.filter((s) => s.state === 'busy').length + this.queue.size;
    const limit = this.size + this.maxQueue;
    if (outstanding >= limit && (own > 0 || outstanding >= limit + this.maxQueue)) throw busy();
    this.perOwner.set(owner, own + 1);
    let answer: WorkerAnswer;
    try {
      answer = await new Promise<WorkerAnswer>((resolve, reject) => {
        this.queue.push(owner, { input: { file, password }, resolve, reject });
        this.pump();
      });
    } finally {
      const left = (this.perOwner.get(owner) ?? 1) - 1;
      if (left > 0) this.perOwner.set(owner, left);
      else this.perOwner.delete(owner);
    }
    // Structured cloning turns Buffers into plain Uint8Arrays.
    return answer.ok
      ? { ok: true, privateKeyDer: Buffer.from(answer.privateKeyDer), certificateDer: Buffer.from(answer.certificateDer), intermediatesDer: answer.intermediatesDer.map((d) => Buffer.from(d)) }
      : answer;
  }

  stats(): ParserPoolStats {
    const count = (state: Slot['state']) => this.slots.filter((s) => s.state === state).length;
    return { ...this.counts, live: this.slots.length, idle: count('idle'), busy: count('busy'), waiting: this.queue.size };
  }

  /** Ends every thread; parses in progress or waiting fail with 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      this.clearTimer(slot);
      slot.job?.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** Hands waiting parses to idle threads, starting threads while there is room and need. */
  private pump(): void {
    while (this.queue.size > 0 && !this.closed) {
      const idle = this.slots.find((s) => s.state === 'idle');
      const job = idle === undefined ? undefined : this.queue.take();
      if (idle !== undefined && job !== undefined) {
        this.assign(idle, job);
        continue;
      }
      const starting = this.slots.filter((s) => s.state === 'starting').length;
      if (starting >= this.queue.size || this.slots.length >= this.size) return;
      this.start();
    }
  }

  private start(): void {
    const worker = new Worker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    worker.unref();
    const slot: Slot = { worker, state: 'starting', job: null, timer: null };
    this.slots.push(slot);
    this.counts.started++;
    worker.on('message', (m: WorkerMessage) => (m.type === 'ready' ? this.becameIdle(slot) : this.answered(slot, m.answer)));
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', (code) => {
      this.counts.exited++;
      this.lost(slot, new Error(`the certificate parser exited with code ${code}`));
    });
  }

  private assign(slot: Slot, job: Job): void {
    this.clearTimer(slot);
    slot.state = 'busy';
    slot.job = job;
    slot.timer = setTimeout(() => this.overran(slot), this.timeoutMs);
    slot.worker.postMessage(job.input);
  }

  private answered(slot: Slot, answer: WorkerAnswer): void {
    const job = slot.job;
    if (job === null || !this.slots.includes(slot)) return;
    this.counts.parses++;
    slot.job = null;
    job.resolve(answer);
    this.becameIdle(slot);
  }

  private becameIdle(slot: Slot): void {
    if (!this.slots.includes(slot)) return;
    this.clearTimer(slot);
    slot.state = 'idle';
    this.pump();
    if (slot.state === 'idle') slot.timer = setTimeout(() => this.remove(slot), this.idleMs).unref();
  }

  private overran(slot: Slot): void {
    const job = slot.job;
    if (!this.remove(slot)) return;
    this.counts.overruns++;
    job?.reject(tooLong());
    this.replace();
  }

  /** A thread that died on its own: its parse fails; one that died starting costs the oldest wait. */
  private lost(slot: Slot, err: Error): void {
    const { state, job } = slot;
    if (!this.remove(slot)) return;
    this.counts.crashes++;
    if (state === 'busy') {
      job?.reject(err);
      this.replace();
    } else if (state === 'starting') {
      // Not replaced: a thread that cannot start would fail again, each failure ending one wait.
      this.queue.take()?.reject(err);
      this.pump();
    }
  }

  private replace(): void {
    if (this.closed || this.slots.length >= this.size) return;
    this.start();
  }

  /** Takes a slot out of the pool and terminates its thread; false if it was already out. */
  private remove(slot: Slot): boolean {
    const i = this.slots.indexOf(slot);
    if (i < 0) return false;
    this.slots.splice(i, 1);
    this.clearTimer(slot);
    void slot.worker.terminate();
    return true;
  }

  private clearTimer(slot: Slot): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
  }
}
