import { connect } from 'node:net';

// HTTP at the byte level: the malformed-input tests need requests no HTTP client would
// send (broken request lines, lying Content-Length, invalid header bytes), so they write
// raw bytes on a socket and read the answer: until it is complete (its Content-Length),
// or the server closes, or the deadline passes.

export interface RawResult {
  /** The status of the first response, null when none came. */
  status: number | null;
  /** The server closed the connection before a complete answer. */
  closed: boolean;
  /** Neither an answer nor a close within the deadline. */
  timedOut: boolean;
  /** The first bytes received, for failure messages. */
  head: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

function complete(data: Buffer, bodyless: boolean): boolean {
  const end = data.indexOf(HEAD_END);
  if (end < 0) return false;
  const head = data.subarray(0, end).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (bodyless || status === 204 || status === 304 || (status >= 100 && status < 200)) return true;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  return length !== undefined && data.length - end - 4 >= Number(length);
}

export interface RawOptions {
  timeoutMs: number;
  /** Pause after each chunk (slow clients). */
  pauseMs?: number;
  /** A HEAD request: the answer has no body whatever its Content-Length says. */
  bodyless?: boolean;
}

/** Writes `chunks` in order and reads the first answer. */
export function sendRaw(port: number, chunks: readonly Buffer[], options: RawOptions): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const head = data.subarray(0, 400).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      resolve({ status: m?.[1] === undefined ? null : Number(m[1]), closed, timedOut, head });
    };
    const timer = setTimeout(() => finish(false, true), options.timeoutMs);
    socket.on('data', (d: Buffer) => {
      // Answers are small; a large one (a dashboard asset) only needs its head kept.
      data = data.length < 65_536 ? Buffer.concat([data, d]) : data;
      if (complete(data, options.bodyless === true)) finish(false, false);
    });
    socket.on('close', () => finish(true, false));
    socket.on('error', () => finish(true, false));
    socket.on('connect', () => {
      void (async () => {
        for (const chunk of chunks) {
          if (socket.destroyed) return;
          socket.write(chunk);
          if (options.pauseMs !== undefined) await new Promise((r) => setTimeout(r, options.pauseMs));
        }
      })();
    });
  });
}
