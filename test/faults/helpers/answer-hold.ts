import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { DGII_PATHS } from '../../../src/dgii/protocol/paths.ts';

// A forwarder in front of the DGII simulator that can withhold the answers of chosen
// uploads: DGII receives them, the service never hears back, for as long as the test
// wants (until the process waiting for them is killed). A timed hold would race the
// kill on a slow machine; this one cannot.

export interface AnswerHold {
  url: string;
  /**
   * Withholds the answers of the uploads numbered first..first+count-1 (1-based, in arrival
   * order, counted from the start). Resolves once DGII has received all of them.
   */
  holdUploads(first: number, count: number): Promise<void>;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export async function startAnswerHold(targetUrl: string): Promise<AnswerHold> {
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  let uploads = 0;
  let held: { first: number; count: number; seen: number; done: () => void } | null = null;

  const forward = (req: IncomingMessage, body: Buffer): Promise<Answer> => new Promise((resolve, reject) => {
    const out = request(new URL(req.url ?? '/', targetUrl), { method: req.method, headers: withoutHopByHop(req.headers), agent }, (res) => {
      readAll(res).then((b) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: b }), reject);
    });
    out.on('error', reject);
    out.end(body);
  });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const upload = req.method === 'POST' && (req.url ?? '').toLowerCase().split('?')[0]?.endsWith(DGII_PATHS.recepcion);
      const number = upload ? ++uploads : 0;
      let answer: Answer;
      try {
        answer = await forward(req, body);
      } catch {
        res.destroy(); // the simulator dropped it: so does the forwarder
        return;
      }
      if (held !== null && number >= held.first && number < held.first + held.count) {
        if (++held.seen === held.count) held.done();
        return; // never answered: the connection stays open until the client goes away
      }
      res.writeHead(answer.status, { ...withoutHopByHop(answer.headers), 'content-length': String(answer.body.length) });
      res.end(answer.body);
    })();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}`,
    holdUploads: (first, count) => new Promise<void>((done) => {
      held = { first, count, seen: 0, done };
    }),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      agent.destroy();
      server.close(() => resolve());
    }),
  };
}
