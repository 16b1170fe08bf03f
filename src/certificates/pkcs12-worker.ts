// Parser thread of ParserPool: answers each file posted to it, one at a time, for as long as
// the pool keeps it. Keys cross the thread boundary as DER so the answer is plain bytes
// whatever the runtime can clone.
import { parentPort } from 'node:worker_threads';
import { parsePkcs12, Pkcs12Error } from './pkcs12.ts';
import type { WorkerAnswer, WorkerInput, WorkerMessage } from './parser-pool.ts';

function answer(input: WorkerInput): WorkerAnswer {
  try {
    const { privateKey, certificate, intermediates } = parsePkcs12(Buffer.from(input.file), input.password);
    return {
      ok: true,
      privateKeyDer: privateKey.export({ type: 'pkcs8', format: 'der' }),
      certificateDer: certificate.raw,
      intermediatesDer: intermediates.map((c) => c.raw),
    };
  } catch (err) {
    // parsePkcs12 throws nothing else; the fallback keeps a broken invariant from leaking details.
    if (err instanceof Pkcs12Error) return { ok: false, code: err.code, message: err.message };
    return { ok: false, code: 'MALFORMED', message: new Pkcs12Error('MALFORMED').message };
  }
}

const port = parentPort;
if (port !== null) {
  const post = (m: WorkerMessage): void => port.postMessage(m);
  port.on('message', (input: WorkerInput) => post({ type: 'answer', answer: answer(input) }));
  post({ type: 'ready' });
}
