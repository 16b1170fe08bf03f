import { isIPv6 } from 'node:net';

/**
 * The bucket of a client address for per-IP limits: an IPv4 address as it is, an IPv6 one by
 * its /64. A single host or customer line is handed a whole /64 (often more), so keyed by the
 * full address one client could draw on 2^64 buckets. IPv4-mapped IPv6 is its IPv4 address.
 */
export function ipRateKey(ip: string): string {
  return ipBuckets(ip).narrow;
}

/**
 * `narrow`: the bucket of ipRateKey. `wide`: for IPv6, the /48 around it, which a limit may
 * fall back to once several of its /64s misbehave (a site or customer is often given a /48 or
 * a /56, so one client may hold many /64s); null for IPv4.
 */
export function ipBuckets(ip: string): { narrow: string; wide: string | null } {
  const address = ip.split('%')[0] ?? ip; // a zone index (fe80::1%eth0) names an interface, not a host
  if (!isIPv6(address)) return { narrow: ip, wide: null };
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return { narrow: [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.'), wide: null };
  }
  const hex = groups.map((g) => g.toString(16));
  return { narrow: `${hex.slice(0, 4).join(':')}::/64`, wide: `${hex.slice(0, 3).join(':')}::/48` };
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function expandIPv6(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
