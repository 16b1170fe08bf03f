// Object identifiers of X.509 certificates and CRLs (RFC 5280, RFC 4055, RFC 5758).

export const EXTENSION = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  issuerAltName: '2.5.29.18',
  basicConstraints: '2.5.29.19',
  cRLNumber: '2.5.29.20',
  reasonCode: '2.5.29.21',
  invalidityDate: '2.5.29.24',
  deltaCRLIndicator: '2.5.29.27',
  issuingDistributionPoint: '2.5.29.28',
  certificateIssuer: '2.5.29.29',
  cRLDistributionPoints: '2.5.29.31',
  certificatePolicies: '2.5.29.32',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  freshestCRL: '2.5.29.46',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
} as const;

/**
 * Certificate extensions this verifier understands well enough that a critical one does not
 * make the certificate unusable. Name constraints and policy constraints are not processed, so
 * a certificate marking them critical is refused (RFC 5280 §4.2).
 */
export const UNDERSTOOD_CERTIFICATE_EXTENSIONS: ReadonlySet<string> = new Set([
  EXTENSION.subjectKeyIdentifier,
  EXTENSION.keyUsage,
  EXTENSION.subjectAltName,
  EXTENSION.issuerAltName,
  EXTENSION.basicConstraints,
  EXTENSION.cRLDistributionPoints,
  EXTENSION.certificatePolicies,
  EXTENSION.authorityKeyIdentifier,
  EXTENSION.extKeyUsage,
  EXTENSION.freshestCRL,
  EXTENSION.authorityInfoAccess,
]);

/** CRL and CRL entry extensions that may be critical without making the CRL unusable. */
export const UNDERSTOOD_CRL_EXTENSIONS: ReadonlySet<string> = new Set([
  EXTENSION.cRLNumber,
  EXTENSION.authorityKeyIdentifier,
  EXTENSION.issuerAltName,
  EXTENSION.reasonCode,
  EXTENSION.invalidityDate,
  EXTENSION.freshestCRL,
  EXTENSION.authorityInfoAccess,
]);

/** Signature algorithms accepted on CRLs, with the digest node:crypto verifies them with. */
export const CRL_SIGNATURE_DIGESTS: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.11': 'sha256', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/** Certificate signature algorithms refused below the trust anchor: collisions can be forged. */
export const WEAK_SIGNATURE_ALGORITHMS: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10040.4.3': 'dsa-with-sha1',
};

/** KeyUsage bit numbers (RFC 5280 §4.2.1.3). */
export const KEY_USAGE = {
  digitalSignature: 0,
  nonRepudiation: 1,
  keyEncipherment: 2,
  dataEncipherment: 3,
  keyAgreement: 4,
  keyCertSign: 5,
  cRLSign: 6,
} as const;
