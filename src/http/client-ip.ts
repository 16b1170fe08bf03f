import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

function normalise(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * The client address: the socket's peer, or with TRUST_PROXY=n the n-th address from the
 * right of X-Forwarded-For (each trusted proxy appends the address it received from, so
 * entries further left are whatever the client chose to send).
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string {
  const peer = normalise(req.socket.remoteAddress ?? 'unknown');
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return peer;
  const hops = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const chosen = hops[hops.length - trustedHops];
  return chosen === undefined ? peer : normalise(chosen);
}

/** The peer of a connection whose request could not be parsed (no headers to trust). */
export function socketIp(socket: Socket): string {
  return normalise(socket.remoteAddress ?? 'unknown');
}
