// A strict DER reader (ITU-T X.690) for the ASN.1 shapes PKCS#12, X.509 certificates and CRLs
// need. Input is hostile (uploaded by tenants, sent by other taxpayers, fetched from CAs), so
// every byte access is bounds-checked and every failure is a DerError; nesting depth and header
// sizes are capped so no input can recurse deeply or describe lengths that do not fit the buffer.
// Callers translate DerError into their own error (PKCS#12 files: Pkcs12Error('MALFORMED')).

export class DerError extends Error {
  override readonly name = 'DerError';
}

function malformed(detail: string): DerError {
  return new DerError(detail);
}

export const TAG = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  UTF8_STRING: 12,
  SEQUENCE: 16,
  SET: 17,
  PRINTABLE_STRING: 19,
  T61_STRING: 20,
  IA5_STRING: 22,
  UTC_TIME: 23,
  GENERALIZED_TIME: 24,
  UNIVERSAL_STRING: 28,
  BMP_STRING: 30,
} as const;

const CLASSES = ['universal', 'application', 'context', 'private'] as const;
export type TagClass = (typeof CLASSES)[number];

export interface DerNode {
  readonly cls: TagClass;
  readonly constructed: boolean;
  readonly tag: number;
  /** Offset of the tag byte in the buffer given to decodeDer (for error details). */
  readonly offset: number;
  /** The whole encoding: tag, length and content. */
  readonly raw: Buffer;
  readonly content: Buffer;
  readonly children: readonly DerNode[];
}

// Each PKCS#12 layer (decoded separately) nests under ten levels and a certificate about eight;
// 32 leaves room for odd encoders while keeping recursion trivially shallow.
export const MAX_DEPTH = 32;
// Each decoded element costs a few hundred bytes of heap; a megabyte of two-byte elements would
// cost ~150 MB. Real structures stay far below this (a certificate has a few hundred elements).
export const MAX_NODES = 10_000;
const MAX_TAG_BYTES = 4;
const MAX_LENGTH_BYTES = 4;
// Real object identifiers are under 40 bytes; the cap keeps big-integer arc decoding linear.
const MAX_OID_BYTES = 128;

interface DecodeState {
  readonly buf: Buffer;
  nodes: number;
}

function byteAt(buf: Buffer, pos: number, end: number, what: string): number {
  const b = pos < end ? buf[pos] : undefined;
  if (b === undefined) throw malformed(`truncated ${what} at byte ${pos}`);
  return b;
}

/** The definite length whose first byte is at `pos` (of the element at `start`), and where its content begins. */
function readLength(buf: Buffer, pos: number, end: number, start: number): { length: number; next: number } {
  let length = byteAt(buf, pos++, end, 'length');
  if (length === 0x80) throw malformed(`indefinite length at byte ${start}`);
  if (length > 0x80) {
    const count = length & 0x7f;
    if (count > MAX_LENGTH_BYTES) throw malformed(`length field too large at byte ${start}`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + byteAt(buf, pos++, end, 'length');
  }
  return { length, next: pos };
}

/** An element read by its header alone. */
export type DerHeader = Omit<DerNode, 'children'>;

/** One element's tag and length, bounds-checked; its content is not looked into. */
function readHeader(buf: Buffer, start: number, end: number): DerHeader {
  let pos = start;
  const first = byteAt(buf, pos++, end, 'tag');
  const cls = CLASSES[first >> 6] ?? 'universal';
  const constructed = (first & 0x20) !== 0;
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let n = 0; ; n++) {
      if (n === MAX_TAG_BYTES) throw malformed(`tag number too large at byte ${start}`);
      const b = byteAt(buf, pos++, end, 'tag');
      tag = tag * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (cls === 'universal' && tag === 0) throw malformed(`end-of-contents marker at byte ${start}`);

  const { length, next } = readLength(buf, pos, end, start);
  pos = next;
  if (length > end - pos) throw malformed(`length at byte ${start} runs past the end of the data`);
  const contentEnd = pos + length;
  return { cls, constructed, tag, offset: start, raw: buf.subarray(start, contentEnd), content: buf.subarray(pos, contentEnd) };
}

function decodeOne(state: DecodeState, start: number, end: number, depth: number): DerNode {
  if (++state.nodes > MAX_NODES) throw malformed(`more than ${MAX_NODES} elements`);
  const header = readHeader(state.buf, start, end);
  let children: DerNode[] = [];
  if (header.constructed) {
    if (depth >= MAX_DEPTH) throw malformed(`nesting deeper than ${MAX_DEPTH} levels`);
    const contentStart = header.offset + header.raw.length - header.content.length;
    children = decodeRange(state, contentStart, contentStart + header.content.length, depth + 1);
  }
  return { ...header, children };
}

function decodeRange(state: DecodeState, start: number, end: number, depth: number): DerNode[] {
  const nodes: DerNode[] = [];
  let pos = start;
  while (pos < end) {
    const node = decodeOne(state, pos, end, depth);
    nodes.push(node);
    pos = node.offset + node.raw.length;
  }
  return nodes;
}

/**
 * Reads only the outermost header: true when the buffer is one SEQUENCE of definite length that
 * spans it exactly, as every PFX is. A few byte reads, so a file that is plainly something else
 * can be refused before any real work.
 */
export function isOneSequence(buf: Buffer): boolean {
  if (buf[0] !== 0x30) return false;
  try {
    const { length, next } = readLength(buf, 1, buf.length, 0);
    return next + length === buf.length;
  } catch {
    return false;
  }
}

/**
 * The elements inside a constructed encoding, read by header only: for structures too large to decode whole, such as a CRL's list of revoked
 * certificates, whose entries are then decoded one by one. `buf` must be one element.
 */
export function shallowChildren(buf: Buffer, what: string): DerHeader[] {
  const outer = readHeader(buf, 0, buf.length);
  if (outer.raw.length !== buf.length) throw malformed(`trailing bytes after ${what}`);
  if (!outer.constructed) throw malformed(`expected a constructed ${what}`);
  const start = buf.length - outer.content.length;
  const out: DerHeader[] = [];
  for (let pos = start; pos < buf.length;) {
    const header = readHeader(buf, pos, buf.length);
    out.push(header);
    pos = header.offset + header.raw.length;
  }
  return out;
}

/** Decodes exactly one element that must span the whole buffer. */
export function decodeDer(buf: Buffer, what: string): DerNode {
  if (buf.length === 0) throw malformed(`${what} is empty`);
  const node = decodeOne({ buf, nodes: 0 }, 0, buf.length, 0);
  if (node.raw.length !== buf.length) throw malformed(`trailing bytes after ${what}`);
  return node;
}

export function isUniversal(node: DerNode | undefined, tag: number): node is DerNode {
  return node !== undefined && node.cls === 'universal' && node.tag === tag;
}

export function isContext(node: DerNode | undefined, tag: number): node is DerNode {
  return node !== undefined && node.cls === 'context' && node.tag === tag;
}

export function expectTag(node: DerNode | undefined, tag: number, what: string): DerNode {
  if (!isUniversal(node, tag)) throw malformed(`expected ${what}`);
  return node;
}

/** Children of a SEQUENCE, with at least `min` of them. */
export function sequence(node: DerNode | undefined, what: string, min = 0): readonly DerNode[] {
  const n = expectTag(node, TAG.SEQUENCE, what);
  if (!n.constructed || n.children.length < min) throw malformed(`incomplete ${what}`);
  return n.children;
}

export function setOf(node: DerNode | undefined, what: string): readonly DerNode[] {
  const n = expectTag(node, TAG.SET, what);
  if (!n.constructed) throw malformed(`expected ${what}`);
  return n.children;
}

/** The single element inside an [n] EXPLICIT tag. */
export function explicit(node: DerNode | undefined, tag: number, what: string): DerNode {
  if (!isContext(node, tag) || !node.constructed || node.children.length !== 1) {
    throw malformed(`expected [${tag}] ${what}`);
  }
  return node.children[0] as DerNode;
}

/**
 * The octets of an OCTET STRING-like node whatever its outer tag (so it also serves [0] IMPLICIT
 * OCTET STRING). Some PKCS#12 writers use the BER constructed form: its pieces are concatenated.
 */
export function octetsOf(node: DerNode, what: string): Buffer {
  if (!node.constructed) return node.content;
  const parts = node.children.map((c) => {
    if (!isUniversal(c, TAG.OCTET_STRING)) throw malformed(`bad segment in ${what}`);
    return octetsOf(c, what);
  });
  return Buffer.concat(parts);
}

export function readOctets(node: DerNode | undefined, what: string): Buffer {
  return octetsOf(expectTag(node, TAG.OCTET_STRING, what), what);
}

/** A non-negative INTEGER no larger than `max` (versions, iteration counts, key lengths). */
export function readUint(node: DerNode | undefined, what: string, max: number): number {
  const n = expectTag(node, TAG.INTEGER, what);
  const bytes = n.content;
  const lead = bytes[0];
  if (n.constructed || lead === undefined || (lead & 0x80) !== 0) throw malformed(`bad ${what}`);
  let value = 0;
  for (const b of bytes) {
    value = value * 256 + b;
    if (value > max) throw malformed(`${what} exceeds ${max}`);
  }
  return value;
}

export function readOid(node: DerNode | undefined, what: string): string {
  const n = expectTag(node, TAG.OID, what);
  const bytes = n.content;
  const last = bytes[bytes.length - 1];
  if (n.constructed || last === undefined || (last & 0x80) !== 0 || bytes.length > MAX_OID_BYTES) {
    throw malformed(`bad object identifier in ${what}`);
  }
  const arcs: bigint[] = [];
  let arc = 0n;
  for (const b of bytes) {
    arc = (arc << 7n) | BigInt(b & 0x7f);
    if ((b & 0x80) === 0) {
      arcs.push(arc);
      arc = 0n;
    }
  }
  const head = arcs[0] ?? 0n;
  const first = head < 40n ? 0n : head < 80n ? 1n : 2n;
  return [first, head - first * 40n, ...arcs.slice(1)].join('.');
}

function utf16be(bytes: Buffer, what: string): string {
  if (bytes.length % 2 !== 0) throw malformed(`bad BMPString in ${what}`);
  return Buffer.from(bytes).swap16().toString('utf16le');
}

function utf32be(bytes: Buffer, what: string): string {
  if (bytes.length % 4 !== 0) throw malformed(`bad UniversalString in ${what}`);
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const cp = bytes.readUInt32BE(i);
    if (cp > 0x10ffff) throw malformed(`bad UniversalString in ${what}`);
    out += String.fromCodePoint(cp);
  }
  return out;
}

const STRING_DECODERS: Readonly<Record<number, (b: Buffer, what: string) => string>> = {
  [TAG.UTF8_STRING]: (b) => b.toString('utf8'),
  [TAG.PRINTABLE_STRING]: (b) => b.toString('latin1'),
  [TAG.IA5_STRING]: (b) => b.toString('latin1'),
  // T.61 is close enough to Latin-1 for the names real CAs put in it.
  [TAG.T61_STRING]: (b) => b.toString('latin1'),
  [TAG.BMP_STRING]: utf16be,
  [TAG.UNIVERSAL_STRING]: utf32be,
};

/** Any of the ASN.1 character string types used in names and attributes. */
export function readString(node: DerNode | undefined, what: string): string {
  const decode = node !== undefined && node.cls === 'universal' ? STRING_DECODERS[node.tag] : undefined;
  if (node === undefined || decode === undefined || node.constructed) throw malformed(`expected string in ${what}`);
  return decode(node.content, what);
}

const UTC_TIME = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/;
const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.\d+)?Z$/;

/** UTCTime or GeneralizedTime (RFC 5280 §4.1.2.5: two-digit years 50–99 are 19xx). */
export function readTime(node: DerNode | undefined, what: string): Date {
  const isUtc = isUniversal(node, TAG.UTC_TIME);
  if (node === undefined || (!isUtc && !isUniversal(node, TAG.GENERALIZED_TIME))) {
    throw malformed(`expected time in ${what}`);
  }
  const m = (isUtc ? UTC_TIME : GENERALIZED_TIME).exec(node.content.toString('latin1'));
  if (m === null) throw malformed(`bad time in ${what}`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const year = isUtc ? (y < 50 ? 2000 + y : 1900 + y) : y;
  const date = new Date(Date.UTC(year, mo - 1, d, h, mi, s));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) throw malformed(`bad time in ${what}`);
  return date;
}
