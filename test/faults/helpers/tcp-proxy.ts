import { createServer, connect, type Server, type Socket } from 'node:net';

// A TCP proxy between a service and PostgreSQL, so a test can take "the database" away
// without touching the server other people's tests use: cut() destroys every open
// connection and stops listening (new connections are refused), restore() listens again
// on the same port. freeze() is a partition without a reset: every connection stays open
// and nothing crosses in either direction (new ones are accepted and held), until thaw().

export class TcpProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Socket>();
  /** The two directions of each connection, unpiped while frozen. */
  private readonly links: [Socket, Socket][] = [];
  private frozen = false;
  /** Connections accepted since start. */
  accepted = 0;
  private readonly targetHost: string;
  private readonly targetPort: number;
  public port: number;

  private constructor(targetHost: string, targetPort: number, port: number) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.port = port;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target.host, target.port, 0);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  get open(): number {
    return this.pairs.size / 2;
  }

  get up(): boolean {
    return this.server !== null;
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        this.port = (server.address() as { port: number }).port;
        this.server = server;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    this.accepted++;
    const upstream = connect(this.targetPort, this.targetHost);
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      this.pairs.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.pairs.delete(a);
        b.destroy();
      });
    }
    this.links.push([client, upstream], [upstream, client]);
    if (!this.frozen) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  }

  /** A partition without a reset: bytes already sent wait in the sockets, nothing crosses. */
  freeze(): void {
    this.frozen = true;
    for (const [from, to] of this.links) from.unpipe(to);
  }

  thaw(): void {
    this.frozen = false;
    for (const [from, to] of this.links) if (!from.destroyed && !to.destroyed) from.pipe(to);
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server === null ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.pairs) s.destroy();
    await closed;
  }

  async restore(): Promise<void> {
    if (this.server === null) await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
