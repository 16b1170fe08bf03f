import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';

// The kept-alive connections of the HTTP/1.1 client (./client.ts), by origin and by the rule
// that chose their address (`pool`: a webhook's guarded lookup is not a DGII call's). A
// connection is given back only after an answer the parser found whole and reusable, and is
// closed after IDLE_MS unused: before the 5 s an idle connection is kept by Node's and
// Apache's servers, so a request rarely meets one its server is closing. A connection that
// receives anything while idle, or ends, is closed and forgotten.

const IDLE_MS = 4_000;
/** Idle connections kept per origin; more are closed as they come back. */
const MAX_IDLE = 64;

/** What a connection's events go to while it carries an exchange. */
export interface ExchangeEvents {
  data(bytes: Buffer): void;
  /** The server ended its side, or the connection closed. */
  closed(): void;
  error(err: Error): void;
}

export interface Connection {
  readonly socket: net.Socket;
  readonly key: string;
  exchange: ExchangeEvents | null;
  idleTimer: NodeJS.Timeout | null;
}

export interface Origin {
  url: URL;
  /** Names the rule `lookup` applies: connections are shared only within one. */
  pool: string;
  lookup?: LookupFunction;
  /** Extra TLS options (a test's own CA); production passes none. */
  tls?: tls.ConnectionOptions;
}

const idle = new Map<string, Connection[]>();

function keyOf(origin: Origin): string {
  return `${origin.pool} ${origin.url.protocol}//${origin.url.host}`;
}

function forget(conn: Connection): void {
  if (conn.idleTimer !== null) clearTimeout(conn.idleTimer);
  conn.idleTimer = null;
  const list = idle.get(conn.key);
  if (list === undefined) return;
  const at = list.indexOf(conn);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) idle.delete(conn.key);
}

function open(origin: Origin, key: string): Connection {
  const { url } = origin;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const https = url.protocol === 'https:';
  const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
  const options = { host, port, noDelay: true, ...(origin.lookup === undefined ? {} : { lookup: origin.lookup }) };
  const socket = https
    ? tls.connect({ ...options, ...(net.isIP(host) === 0 ? { servername: host } : {}), ALPNProtocols: ['http/1.1'], ...origin.tls })
    : net.connect(options);
  const conn: Connection = { socket, key, exchange: null, idleTimer: null };
  socket.on('data', (bytes: Buffer) => {
    if (conn.exchange !== null) conn.exchange.data(bytes);
    else socket.destroy();
  });
  socket.on('end', () => {
    if (conn.exchange !== null) conn.exchange.closed();
    else socket.destroy();
  });
  socket.on('close', () => {
    forget(conn);
    conn.exchange?.closed();
  });
  socket.on('error', (err: Error) => conn.exchange?.error(err));
  return conn;
}

/** An idle connection to the origin (the most recently used), or a new one. */
export function take(origin: Origin): Connection {
  const key = keyOf(origin);
  const list = idle.get(key);
  let conn = list?.pop();
  // One that closed in this turn has not yet told us.
  while (conn?.socket.destroyed === true) conn = list?.pop();
  if (list?.length === 0) idle.delete(key);
  if (conn === undefined) return open(origin, key);
  if (conn.idleTimer !== null) clearTimeout(conn.idleTimer);
  conn.idleTimer = null;
  return conn;
}

/** Keeps the connection for the next exchange to its origin. */
export function giveBack(conn: Connection): void {
  conn.exchange = null;
  const list = idle.get(conn.key) ?? [];
  if (list.length >= MAX_IDLE || conn.socket.destroyed) {
    conn.socket.destroy();
    return;
  }
  list.push(conn);
  idle.set(conn.key, list);
  conn.idleTimer = setTimeout(() => conn.socket.destroy(), IDLE_MS);
  conn.idleTimer.unref();
}
