import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Destinations the service may not reach on behalf of others (webhooks, CRLs named in
// certificates) unless the feature allows private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS, …):
// a URL someone else chose must not become a way into the service's own network. The IPv6 part covers
// every block IANA's IPv6 Special-Purpose Address Registry marks not globally reachable, and
// refuses whole blocks where only some sub-blocks are reachable (2001::/23) or that embed an
// IPv4 address (NAT64, 6to4, IPv4-compatible). IPv4-mapped addresses (::ffff:0:0/96) are
// judged by the IPv4 address they carry, which is what the socket dials: see forbiddenReason.
export const FORBIDDEN_RANGES = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'ipv4', 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'ipv4', 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, 'ipv4', 'reserved (6to4 relay)'],
  ['192.168.0.0', 16, 'ipv4', 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'ipv4', 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved (incl. broadcast)'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  // After the two above, so that :: and ::1 keep their own names.
  ['::', 96, 'ipv6', 'IPv4-compatible (deprecated, embeds IPv4)'],
  ['::ffff:0:0:0', 96, 'ipv6', 'IPv4-translated (embeds IPv4)'],
  ['64:ff9b::', 96, 'ipv6', 'NAT64 (embeds IPv4)'],
  ['64:ff9b:1::', 48, 'ipv6', 'NAT64 local use'],
  ['100::', 64, 'ipv6', 'discard-only'],
  ['100:0:0:1::', 64, 'ipv6', 'dummy prefix (RFC 9780)'],
  ['2001::', 23, 'ipv6', 'IETF protocol assignments (incl. Teredo)'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['2002::', 16, 'ipv6', '6to4 (embeds IPv4)'],
  ['3fff::', 20, 'ipv6', 'documentation'],
  ['5f00::', 16, 'ipv6', 'SRv6 segment identifiers (RFC 9602)'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local (deprecated)'],
  ['ff00::', 8, 'ipv6', 'multicast'],
] as const;

const lists = FORBIDDEN_RANGES.map(([network, prefix, family, label]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, label, cidr: `${network}/${prefix}` };
});

/**
 * Why `address` is forbidden (e.g. "127.0.0.1 is loopback (127.0.0.0/8)"), or null when it
 * may be dialled. IPv6 addresses are checked against the IPv4 ranges too: BlockList
 * matches IPv4-mapped forms (::ffff:127.0.0.1, ::ffff:7f00:1) against IPv4 subnets.
 */
export function forbiddenReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const range of lists) {
    if (type === 'ipv4' && range.family !== 'ipv4') continue;
    if (range.list.check(address, type)) return `${address} is ${range.label} (${range.cidr})`;
  }
  return null;
}

export class ForbiddenDestinationError extends Error {
  override name = 'ForbiddenDestinationError';
  readonly code = 'EFORBIDDEN_DESTINATION';
}

/**
 * Why a host *name* is forbidden before any lookup, or null: `localhost` and every name under
 * `.localhost` are loopback by definition (RFC 6761), however they are spelt: any case, with a
 * trailing dot (`LOCALHOST.`), which some resolvers answer and others do not.
 */
export function reservedNameReason(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? `${hostname} resolves to a loopback address by definition (a localhost name, RFC 6761)` : null;
}

/** Resolves a host name to all its addresses: dns.lookup, or another resolver in tests. */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for http.request that resolves the host once, refuses it if any of its
 * addresses is forbidden, and hands the socket the very address it checked, so a DNS
 * answer that changes between check and connect (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    const reserved = allowPrivate ? null : reservedNameReason(hostname);
    if (reserved !== null) return callback(new ForbiddenDestinationError(`refused destination: ${reserved}`), '', 0);
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) return callback(err, '', 0);
      if (addresses.length === 0) return callback(new Error(`${hostname} has no address`), '', 0);
      if (!allowPrivate) {
        for (const a of addresses) {
          const reason = forbiddenReason(a.address);
          if (reason !== null) return callback(new ForbiddenDestinationError(`refused destination: ${hostname} resolves to ${reason}`), '', 0);
        }
      }
      const chosen = addresses[0] as LookupAddress;
      if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [chosen]);
      callback(null, chosen.address, chosen.family);
    });
  };
}

/** For URLs whose host is an IP literal (no lookup happens for those): null when allowed. */
export function literalHostReason(hostname: string): string | null {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(host) === 0 ? null : forbiddenReason(host);
}

/**
 * Why a URL's host may not be dialled, or null: an IP literal is judged as it is, a name by every
 * address it resolves to now. A name that does not resolve within a few seconds is let through:
 * delivery's guarded lookup checks again, so this only answers a certain refusal early.
 */
export async function hostReason(hostname: string, resolve: Resolver = dnsLookup): Promise<string | null> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) !== 0) return forbiddenReason(host);
  const reserved = reservedNameReason(host);
  if (reserved !== null) return reserved;
  const addresses = await new Promise<LookupAddress[]>((done) => {
    const timer = setTimeout(() => done([]), 5000);
    resolve(host, { all: true }, (err, found) => {
      clearTimeout(timer);
      done(err === null ? found : []);
    });
  });
  for (const a of addresses) {
    const reason = forbiddenReason(a.address);
    if (reason !== null) return `${host} resolves to ${reason}`;
  }
  return null;
}
