// RFC 7292 §4.2: SafeContents and the bags in it. Keys and certificates are collected with the
// attributes that pair them; CRL, secret and unknown bags are skipped.
import { type KeyObject, X509Certificate, createPrivateKey } from 'node:crypto';
import { type DerNode, decodeDer, explicit, readOctets, readOid, readString, sequence, setOf } from '../crypto/der.ts';
import { malformed } from './errors.ts';
import { OID } from './oids.ts';
import { type PbeContext, decryptThen } from './pbe.ts';

export interface BagAttributes {
  localKeyId: Buffer | null;
  friendlyName: string | null;
}
export interface KeyEntry extends BagAttributes {
  key: KeyObject;
}
export interface CertEntry extends BagAttributes {
  cert: X509Certificate;
}
export interface BagCollection {
  keys: KeyEntry[];
  certs: CertEntry[];
}

// A signing credential holds one key and a short chain. The cap bounds the key/certificate
// pairing work a hostile file can cause.
const MAX_ENTRIES = 64;

export function toPrivateKey(der: Buffer): KeyObject {
  sequence(decodeDer(der, 'PrivateKeyInfo'), 'PrivateKeyInfo', 3);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch (e) {
    throw malformed(`the private key cannot be read: ${e instanceof Error ? e.message : 'unknown error'}`);
  }
}

function toCertificate(der: Buffer): X509Certificate {
  sequence(decodeDer(der, 'certificate'), 'certificate', 3);
  try {
    return new X509Certificate(der);
  } catch (e) {
    throw malformed(`a certificate cannot be read: ${e instanceof Error ? e.message : 'unknown error'}`);
  }
}

function readAttributes(node: DerNode | undefined): BagAttributes {
  const attrs: BagAttributes = { localKeyId: null, friendlyName: null };
  if (node === undefined) return attrs;
  for (const attribute of setOf(node, 'bag attributes')) {
    const [idNode, valuesNode] = sequence(attribute, 'bag attribute', 2);
    const id = readOid(idNode, 'bag attribute type');
    const first = setOf(valuesNode, 'bag attribute values')[0];
    if (first === undefined) continue;
    if (id === OID.localKeyId) attrs.localKeyId = readOctets(first, 'localKeyId');
    if (id === OID.friendlyName) attrs.friendlyName = readString(first, 'friendlyName');
  }
  return attrs;
}

function add<T>(list: T[], entry: T): void {
  if (list.length >= MAX_ENTRIES) throw malformed(`more than ${MAX_ENTRIES} keys or certificates`);
  list.push(entry);
}

type BagHandler = (value: DerNode, attrs: BagAttributes, ctx: PbeContext, out: BagCollection) => void;

const BAG_HANDLERS: Readonly<Record<string, BagHandler>> = {
  [OID.keyBag]: (value, attrs, _ctx, out) => add(out.keys, { ...attrs, key: toPrivateKey(value.raw) }),
  [OID.pkcs8ShroudedKeyBag]: (value, attrs, ctx, out) => {
    const [algorithm, encrypted] = sequence(value, 'EncryptedPrivateKeyInfo', 2);
    const data = readOctets(encrypted, 'encrypted private key');
    add(out.keys, { ...attrs, key: decryptThen(ctx, algorithm, data, toPrivateKey) });
  },
  [OID.certBag]: (value, attrs, _ctx, out) => {
    const [typeNode, certValue] = sequence(value, 'CertBag', 2);
    // SDSI certificates (the only other registered type) are not X.509 and cannot sign XML.
    if (readOid(typeNode, 'certificate type') !== OID.x509Certificate) return;
    const der = readOctets(explicit(certValue, 0, 'certificate value'), 'certificate value');
    add(out.certs, { ...attrs, cert: toCertificate(der) });
  },
  [OID.safeContentsBag]: (value, _attrs, ctx, out) => readSafeContents(value, ctx, out),
};

export function readSafeContents(node: DerNode, ctx: PbeContext, out: BagCollection): void {
  for (const bagNode of sequence(node, 'SafeContents')) {
    const bag = sequence(bagNode, 'SafeBag', 2);
    if (bag.length > 3) throw malformed('SafeBag has extra fields');
    const handler = BAG_HANDLERS[readOid(bag[0], 'bag type')];
    const value = explicit(bag[1], 0, 'bag value');
    const attrs = readAttributes(bag[2]);
    handler?.(value, attrs, ctx, out);
  }
}
