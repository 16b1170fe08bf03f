import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

// A gateway in front of a tenant's receiver in the service, listed in DGII's directory in its
// place, so a test can take the buyer's receiver down and fix it again: `down` answers every
// request 503; `held` keeps each request until `release()`, then forwards it; `up` forwards.

export type GatewayMode = 'down' | 'held' | 'up';

export interface ReceiverGateway {
  /** The base to list in the directory (urlRecepcion, urlAceptacion, urlOpcional). */
  url: string;
  mode: GatewayMode;
  /** Holds requests from now on until `release()`. */
  hold(): void;
  /** Lets the held requests through and forwards the next ones. */
  release(): void;
  close(): Promise<void>;
}

/** A gateway to `target`, e.g. `${service}/TesteCF/receptor/${rnc}`; it starts `down`. */
export async function startReceiverGateway(target: string): Promise<ReceiverGateway> {
  let open: () => void = () => undefined;
  let opened: Promise<void> = Promise.resolve();

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (gateway.mode === 'down') {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('En mantenimiento');
      return;
    }
    if (gateway.mode === 'held') await opened;
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'accept']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${target}${(req.url ?? '').replace(/^\/gw/, '')}`, {
      method: req.method ?? 'GET', headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  }

  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gateway: ReceiverGateway = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/gw`,
    mode: 'down',
    hold() {
      opened = new Promise((resolve) => (open = resolve));
      gateway.mode = 'held';
    },
    release() {
      gateway.mode = 'up';
      open();
    },
    close: () => {
      open();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return gateway;
}
