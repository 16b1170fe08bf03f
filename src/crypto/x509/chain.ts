// Certification path building and validation (a profile of RFC 5280 §6): from the signer's
// certificate, through intermediates the signer supplied (XMLDSig X509Data), to one of the
// configured trust anchors. Each link is checked with node:crypto (issuer name and key
// identifiers by checkIssued, the signature by verify); the rest is read from the DER:
// validity at the signing time, KeyUsage, BasicConstraints and its path length, weak
// signature algorithms and critical extensions this verifier does not process. Revocation is
// separate (revocation.ts): it needs the network.
import type { X509Certificate } from 'node:crypto';
import { type CertificateFields, basicConstraints, keyUsageBits, readCertificateFields } from './certificate-fields.ts';
import { KEY_USAGE, UNDERSTOOD_CERTIFICATE_EXTENSIONS, WEAK_SIGNATURE_ALGORITHMS } from './oids.ts';
import { oneLine } from './trust-store.ts';

/** Certificates from leaf to anchor, both included; real national PKIs use three or four. */
export const MAX_PATH_LENGTH = 6;
// Crafted intermediates that all "issue" one another would make the search exponential:
// issuer links are computed once per pair and the search visits a bounded number of paths.
const MAX_PATHS_VISITED = 64;

export interface PathLink {
  certificate: X509Certificate;
  fields: CertificateFields;
}

export type ChainResult =
  | { ok: true; /** Leaf first, the trust anchor last. */ path: PathLink[] }
  | { ok: false; reason: string };

function issuedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function describe(cert: X509Certificate): string {
  return `«${oneLine(cert.subject)}»`;
}

/** Why the certificate at `index` of the path (0: leaf, last: anchor) is unacceptable, or null. */
function linkProblem(link: PathLink, index: number, last: number, at: Date): string | null {
  const { certificate, fields } = link;
  const who = index === 0 ? 'El certificado del firmante' : `El certificado de la CA ${describe(certificate)}`;
  if (fields.notBefore > at) return `${who} no era válido aún en la fecha de firma (${at.toISOString()}): lo es desde ${fields.notBefore.toISOString()}`;
  if (fields.notAfter <= at) return `${who} estaba vencido en la fecha de firma (${at.toISOString()}): venció el ${fields.notAfter.toISOString()}`;
  // The anchor is trusted as configured; what it says of itself is not checked further.
  if (index === last) return null;
  const weak = WEAK_SIGNATURE_ALGORITHMS[fields.signatureAlgorithm];
  if (weak !== undefined) return `${who} está firmado con ${weak}, un algoritmo inseguro`;
  for (const [oid, ext] of fields.extensions) {
    if (ext.critical && !UNDERSTOOD_CERTIFICATE_EXTENSIONS.has(oid)) return `${who} tiene una extensión crítica no soportada (${oid})`;
  }
  const usage = keyUsageBits(fields);
  if (index === 0) {
    // RFC 5280: without KeyUsage the key's use is not restricted.
    if (usage !== null && !usage.has(KEY_USAGE.digitalSignature) && !usage.has(KEY_USAGE.nonRepudiation)) {
      return `${who} no permite firmar (KeyUsage sin digitalSignature ni nonRepudiation)`;
    }
    return null;
  }
  const constraints = basicConstraints(fields);
  if (!constraints.ca) return `${who} no es de una autoridad de certificación (BasicConstraints)`;
  if (usage !== null && !usage.has(KEY_USAGE.keyCertSign)) return `${who} no permite firmar certificados (KeyUsage sin keyCertSign)`;
  // Intermediate CAs between this one and the leaf.
  if (constraints.pathLength !== null && index - 1 > constraints.pathLength) return `${who} admite ${constraints.pathLength} CA intermedias debajo y la cadena tiene ${index - 1}`;
  return null;
}

function validate(path: readonly X509Certificate[], at: Date): ChainResult {
  const links: PathLink[] = [];
  for (const [index, certificate] of path.entries()) {
    let fields: CertificateFields;
    try {
      fields = readCertificateFields(certificate);
    } catch (e) {
      return { ok: false, reason: `El certificado ${describe(certificate)} está malformado: ${e instanceof Error ? e.message : String(e)}` };
    }
    const link = { certificate, fields };
    const problem = linkProblem(link, index, path.length - 1, at);
    if (problem !== null) return { ok: false, reason: problem };
    links.push(link);
  }
  return { ok: true, path: links };
}

/**
 * A valid path from `leaf` to one of `anchors` at time `at`, trying every candidate issuer
 * (depth-first, bounded by MAX_PATH_LENGTH), or the reason none exists: the problem of the
 * first complete path found when every complete path is invalid.
 */
export function verifyChain(leaf: X509Certificate, intermediates: readonly X509Certificate[], anchors: readonly X509Certificate[], at: Date): ChainResult {
  const anchorPrints = new Set(anchors.map((a) => a.fingerprint256));
  let firstProblem: string | null = null;
  let visited = 0;
  const links = new Map<string, { anchors: X509Certificate[]; intermediates: X509Certificate[] }>();
  const issuersOf = (cert: X509Certificate) => {
    let found = links.get(cert.fingerprint256);
    if (found === undefined) {
      found = { anchors: anchors.filter((a) => issuedBy(cert, a)), intermediates: intermediates.filter((i) => issuedBy(cert, i)) };
      links.set(cert.fingerprint256, found);
    }
    return found;
  };

  const extend = (path: X509Certificate[]): ChainResult | null => {
    const current = path[path.length - 1] as X509Certificate;
    // An intermediate that is itself an anchor ends the path there.
    if (path.length > 1 && anchorPrints.has(current.fingerprint256)) {
      const result = validate(path, at);
      if (result.ok) return result;
      firstProblem ??= result.reason;
      return null;
    }
    if (path.length >= MAX_PATH_LENGTH || ++visited > MAX_PATHS_VISITED) return null;
    const issuers = issuersOf(current);
    for (const anchor of issuers.anchors) {
      const result = validate([...path, anchor], at);
      if (result.ok) return result;
      firstProblem ??= result.reason;
    }
    for (const next of issuers.intermediates) {
      if (path.some((c) => c.fingerprint256 === next.fingerprint256)) continue;
      const found = extend([...path, next]);
      if (found !== null) return found;
    }
    return null;
  };

  const found = extend([leaf]);
  if (found !== null) return found;
  return {
    ok: false,
    reason: firstProblem ?? `El certificado ${describe(leaf)} (emitido por «${oneLine(leaf.issuer)}») no se pudo encadenar hasta una autoridad de certificación de confianza`,
  };
}
