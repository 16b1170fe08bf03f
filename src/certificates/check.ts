// Whether a parsed credential can sign DGII documents, and a summary of a certificate for listings.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { type DerNode, decodeDer, isContext, readOid, readString, readTime, sequence, setOf } from '../crypto/der.ts';
import { OID } from './oids.ts';

export interface SigningCredential {
  privateKey: KeyObject;
  certificate: X509Certificate;
  /** The leaf's intermediates from its PKCS#12, for KeyInfo after the leaf; absent or empty when it had none. */
  chain?: readonly X509Certificate[];
}

export interface CertificateProblem {
  path: string;
  message: string;
}

export interface CertificateSummary {
  subject: string;
  issuer: string;
  serialNumber: string;
  validFrom: Date;
  validTo: Date;
  fingerprint256: string;
  /** The holder's RNC (9 digits) or cédula (11 digits) when the subject carries one. */
  holderId: string | null;
}

// DGII's XML signatures are RSA-SHA256 (PKCS#1 v1.5); NIST SP 800-131A disallows shorter RSA keys.
export const MIN_RSA_BITS = 2048;

interface TbsFields {
  validFrom: Date;
  validTo: Date;
  subject: { oid: string; value: string }[];
}

function readName(name: DerNode | undefined): { oid: string; value: string }[] {
  const attributes: { oid: string; value: string }[] = [];
  for (const rdn of sequence(name, 'Name')) {
    for (const atv of setOf(rdn, 'RelativeDistinguishedName')) {
      const [type, value] = sequence(atv, 'AttributeTypeAndValue', 2);
      try {
        attributes.push({ oid: readOid(type, 'attribute type'), value: readString(value, 'attribute value') });
      } catch {
        // Attributes that are not strings carry no name text; skip them.
      }
    }
  }
  return attributes;
}

// Node 20's X509Certificate exposes validity only as locale-style strings; the DER is exact.
function readTbs(cert: X509Certificate): TbsFields | null {
  try {
    const [tbsNode] = sequence(decodeDer(cert.raw, 'certificate'), 'certificate', 3);
    const tbs = sequence(tbsNode, 'TBSCertificate', 6);
    const skip = isContext(tbs[0], 0) ? 1 : 0;
    const [from, to] = sequence(tbs[skip + 3], 'Validity', 2);
    return {
      validFrom: readTime(from, 'notBefore'),
      validTo: readTime(to, 'notAfter'),
      subject: readName(tbs[skip + 4]),
    };
  } catch {
    return null;
  }
}

function validity(cert: X509Certificate, tbs: TbsFields | null): { validFrom: Date; validTo: Date } {
  if (tbs !== null) return { validFrom: tbs.validFrom, validTo: tbs.validTo };
  return { validFrom: new Date(cert.validFrom), validTo: new Date(cert.validTo) };
}

const ID_LENGTHS: readonly number[] = [9, 11];

// Dominican CAs write the holder's id as e.g. "IDCDO-00112345678", "RNC 101010101" or
// "001-1234567-8": the first run of digits (dashes allowed) of RNC or cédula length.
function findId(text: string): string | null {
  for (const run of text.match(/\d(?:-?\d)*/g) ?? []) {
    const digits = run.replaceAll('-', '');
    if (ID_LENGTHS.includes(digits.length)) return digits;
  }
  return null;
}

function holderId(tbs: TbsFields | null): string | null {
  for (const oid of [OID.serialNumber, OID.commonName]) {
    for (const attribute of tbs?.subject ?? []) {
      const id = attribute.oid === oid ? findId(attribute.value) : null;
      if (id !== null) return id;
    }
  }
  return null;
}

export function describeCertificate(cert: X509Certificate): CertificateSummary {
  const tbs = readTbs(cert);
  return {
    subject: cert.subject.split('\n').join(', '),
    issuer: cert.issuer.split('\n').join(', '),
    serialNumber: cert.serialNumber,
    ...validity(cert, tbs),
    fingerprint256: cert.fingerprint256,
    holderId: holderId(tbs),
  };
}

interface CheckInput extends SigningCredential {
  now: Date;
  validFrom: Date;
  validTo: Date;
}

function keyMatches({ certificate, privateKey }: SigningCredential): boolean {
  try {
    return certificate.checkPrivateKey(privateKey);
  } catch {
    return false;
  }
}

const CHECKS: readonly { path: string; problem: (c: CheckInput) => string | null }[] = [
  {
    path: 'privateKey',
    problem: ({ privateKey: { asymmetricKeyType: type } }) =>
      type === 'rsa' ? null : `The private key is ${type ?? 'of an unknown type'}; DGII signatures require an RSA key.`,
  },
  {
    path: 'privateKey',
    problem: ({ privateKey }) => {
      const bits = privateKey.asymmetricKeyDetails?.modulusLength;
      return privateKey.asymmetricKeyType === 'rsa' && (bits ?? 0) < MIN_RSA_BITS
        ? `The RSA key has ${bits ?? 'an unknown number of'} bits; at least ${MIN_RSA_BITS} are required.`
        : null;
    },
  },
  {
    path: 'privateKey',
    problem: (c) => (keyMatches(c) ? null : 'The private key does not belong to the certificate.'),
  },
  {
    path: 'certificate.validFrom',
    problem: ({ now, validFrom }) =>
      validFrom > now ? `The certificate is not valid until ${validFrom.toISOString()}.` : null,
  },
  {
    path: 'certificate.validTo',
    problem: ({ now, validTo }) => (validTo <= now ? `The certificate expired on ${validTo.toISOString()}.` : null),
  },
];

/** Problems that make the credential unusable for signing at `now`; [] when it is fine. */
export function checkSigningCertificate(p: SigningCredential, now: Date): CertificateProblem[] {
  const input: CheckInput = { ...p, now, ...validity(p.certificate, readTbs(p.certificate)) };
  const problems: CertificateProblem[] = [];
  for (const { path, problem } of CHECKS) {
    const message = problem(input);
    if (message !== null) problems.push({ path, message });
  }
  return problems;
}

// The rules of checkSigningCertificate for a certificate seen without its key, as the authority
// and a receiver see a sender's. verifyXml has already refused RSA keys under MIN_RSA_BITS; the
// check stays here so the rule is visible where certificates are accepted.
export function certificateProblem(certificate: X509Certificate, now: Date): string | null {
  const key = certificate.publicKey;
  const bits = key.asymmetricKeyType === 'rsa' ? (key.asymmetricKeyDetails?.modulusLength ?? 0) : 0;
  if (bits < MIN_RSA_BITS) return `El certificado debe tener una llave RSA de al menos ${MIN_RSA_BITS} bits`;
  const { validFrom, validTo } = describeCertificate(certificate);
  if (validFrom > now) return `El certificado no es válido antes de ${validFrom.toISOString()}`;
  if (validTo <= now) return `El certificado venció el ${validTo.toISOString()}`;
  return null;
}
