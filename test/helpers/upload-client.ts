import { connect } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

// Clients uploading a large body to a request the server answers before reading it. They run
// on their own thread: with client and server on one event loop, the server's answer is
// always read before the client's next write can fail, which hides the race between the
// answer and a reset of the connection.

export interface UploadRun {
  port: number;
  /** The request's head, up to and including the empty line. */
  head: string;
  bodyBytes: number;
  requests: number;
  concurrency: number;
}

/** How each upload ended: 'answered <status>', 'closed' without an answer, or 'error <code>' first. */
export type UploadCounts = Record<string, number>;

function upload(run: UploadRun): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(run.port, '127.0.0.1');
    let data = '';
    const finish = (outcome: string) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(data)?.[1];
      if (status !== undefined && data.includes('\r\n\r\n')) finish(`answered ${status}`);
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', (e: Error & { code?: string }) => finish(`error ${e.code ?? e.message}`));
    socket.on('connect', () => {
      socket.write(run.head);
      socket.write(Buffer.alloc(run.bodyBytes, '['));
    });
  });
}

async function uploads(run: UploadRun): Promise<UploadCounts> {
  const counts: UploadCounts = {};
  let left = run.requests;
  await Promise.all(Array.from({ length: run.concurrency }, async () => {
    while (left-- > 0) {
      const outcome = await upload(run);
      counts[outcome] = (counts[outcome] ?? 0) + 1;
    }
  }));
  return counts;
}

/** Runs the uploads on a worker thread and counts how they ended. */
export function uploadFromAnotherThread(run: UploadRun): Promise<UploadCounts> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: run });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  void uploads(workerData as UploadRun).then((counts) => port.postMessage(counts));
}
