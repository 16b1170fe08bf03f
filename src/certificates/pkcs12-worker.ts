// Worker thread entry: parses one PKCS#12 file and posts the outcome. Keys cross the thread
// boundary as DER so the answer is plain bytes whatever the runtime can clone.
import { parentPort, workerData } from 'node:worker_threads';
import { parsePkcs12, Pkcs12Error } from './pkcs12.ts';
import type { WorkerAnswer, WorkerInput } from './parse-in-worker.ts';

function answer(input: WorkerInput): WorkerAnswer {
  try {
    const { privateKey, certificate } = parsePkcs12(Buffer.from(input.file), input.password);
    return {
      ok: true,
      privateKeyDer: privateKey.export({ type: 'pkcs8', format: 'der' }),
      certificateDer: certificate.raw,
    };
  } catch (err) {
    // parsePkcs12 throws nothing else; the fallback keeps a broken invariant from leaking details.
    if (err instanceof Pkcs12Error) return { ok: false, code: err.code, message: err.message };
    return { ok: false, code: 'MALFORMED', message: new Pkcs12Error('MALFORMED').message };
  }
}

parentPort?.postMessage(answer(workerData as WorkerInput));
