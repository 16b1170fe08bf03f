import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import { Semaphore } from '../lib/semaphore.ts';
import type { Pkcs12ErrorCode } from './pkcs12.ts';

// parsePkcs12 is synchronous and, on a hostile file, may spend its whole work budget (over a
// second of key derivation) before giving up. Uploads come from any tenant, so the parse runs
// in a worker thread: the event loop keeps serving everyone else, a parse that overruns is
// terminated, and only a few run at once.
//
// The service runs TypeScript through tsx, whose loader does not reach worker threads on
// Node 20; the worker therefore starts from a tiny script that registers it first.

export interface WorkerInput {
  file: Uint8Array;
  password: string;
}

export type WorkerAnswer =
  | { ok: true; privateKeyDer: Buffer; certificateDer: Buffer }
  | { ok: false; code: Pkcs12ErrorCode; message: string };

const BOOT = `
const { workerData } = require('node:worker_threads');
import(workerData.loader).then((api) => { api.register(); return import(workerData.entry); });
`;

const ENTRY = new URL('./pkcs12-worker.ts', import.meta.url).href;
const TIMEOUT_MS = 20_000;
const parses = new Semaphore(2, 20);

function runWorker(input: WorkerInput, timeoutMs: number): Promise<WorkerAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOT, {
      eval: true,
      workerData: { ...input, loader: import.meta.resolve('tsx/esm/api'), entry: ENTRY },
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new AppError('SERVICE_UNAVAILABLE', 'Reading the certificate file took too long; try again later'))), timeoutMs);
    worker.once('message', (answer: WorkerAnswer) => settle(() => resolve(answer)));
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) => settle(() => reject(new Error(`the certificate parser exited with code ${code} without an answer`))));
  });
}

/** parsePkcs12 on a worker thread; at most two at once, 503 when too many are waiting. */
export async function parsePkcs12InWorker(file: Buffer, password: string, timeoutMs = TIMEOUT_MS): Promise<WorkerAnswer> {
  if (!parses.canEnter()) throw new AppError('SERVICE_UNAVAILABLE', 'Too many certificate uploads are being processed; try again shortly', { headers: { 'retry-after': '5' } });
  const answer = await parses.run(() => runWorker({ file, password }, timeoutMs));
  // Structured cloning turns Buffers into plain Uint8Arrays.
  return answer.ok ? { ok: true, privateKeyDer: Buffer.from(answer.privateKeyDer), certificateDer: Buffer.from(answer.certificateDer) } : answer;
}
