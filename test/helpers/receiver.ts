import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

// A real webhook receiver on loopback. It keeps every request (raw body bytes and headers),
// verifies X-ECF-Signature the way a receiver following GitHub's scheme would, and answers
// according to `respond` (status, optional delay or gate, or never). It counts the requests
// it holds at once, so tests can see how many deliveries were in flight together.

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: Record<string, unknown>;
  signatureValid: boolean | null;
  at: number;
}

export type Answer = {
  status: number;
  delayMs?: number;
  /** The answer is held until this settles (a test decides when an attempt ends). */
  gate?: Promise<unknown>;
  body?: string | Buffer;
  headers?: Record<string, string>;
} | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  respond: (req: Received, index: number) => Answer;
  /** Requests received and not yet answered, now and at most. */
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

export function verifySignature(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (header === undefined || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(options: { secret?: string; respond?: Receiver['respond']; path?: string } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const receiver: Receiver = {
    url: '',
    received,
    respond: options.respond ?? (() => ({ status: 204 })),
    inFlight: 0,
    maxInFlight: 0,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((req, res) => {
    receiver.inFlight++;
    receiver.maxInFlight = Math.max(receiver.maxInFlight, receiver.inFlight);
    res.on('close', () => receiver.inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        // kept raw
      }
      const header = req.headers['x-ecf-signature'];
      const entry: Received = {
        headers: req.headers, raw, json, at: Date.now(),
        signatureValid: options.secret === undefined ? null : verifySignature(options.secret, raw, typeof header === 'string' ? header : undefined),
      };
      received.push(entry);
      const answer = receiver.respond(entry, received.length - 1);
      if (answer === 'hang') return;
      const send = () => {
        // A receiver rejects a bad signature with 401, as the specification says.
        const status = entry.signatureValid === false ? 401 : answer.status;
        res.writeHead(status, answer.headers);
        res.end(answer.body ?? '');
      };
      if (answer.gate !== undefined) void answer.gate.then(send);
      else if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${address.port}${options.path ?? '/hooks/ecf'}`;
  return receiver;
}
