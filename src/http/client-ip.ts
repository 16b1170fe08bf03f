import type { IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';

function normalise(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * An X-Forwarded-For entry as an address: a bare IPv4 or IPv6 address, or one with a port
 * (`203.0.113.7:4711`, `[2001:db8::1]:4711`, as some proxies write it); null for anything else.
 */
export function forwardedAddress(entry: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  const candidate = bracketed?.[1] ?? v4WithPort?.[1] ?? entry;
  if (candidate.length > 64) return null;
  return isIP(candidate) === 0 ? null : normalise(candidate.toLowerCase());
}

/**
 * The client address: the socket's peer, or with TRUST_PROXY=n the n-th address from the
 * right of X-Forwarded-For (each trusted proxy appends the address it received from, so
 * entries further left are whatever the client chose to send). An entry there that is not an
 * IP address is not taken as a client's identity (it would give a client as many rate-limit
 * buckets as strings it can make up): the peer, the nearest proxy, is used instead.
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string {
  const peer = normalise(req.socket.remoteAddress ?? 'unknown');
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return peer;
  const hops = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const chosen = hops[hops.length - trustedHops];
  if (chosen === undefined) return peer;
  return forwardedAddress(chosen) ?? peer;
}

/** The peer of a connection whose request could not be parsed (no headers to trust). */
export function socketIp(socket: Socket): string {
  return normalise(socket.remoteAddress ?? 'unknown');
}
