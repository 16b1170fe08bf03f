// Object identifiers named after their ASN.1 value names in the RFCs that define them.
export const OID = {
  // RFC 5652 content types
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  encryptedData: '1.2.840.113549.1.7.6',
  // RFC 7292 bag types and attributes
  keyBag: '1.2.840.113549.1.12.10.1.1',
  pkcs8ShroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  crlBag: '1.2.840.113549.1.12.10.1.4',
  secretBag: '1.2.840.113549.1.12.10.1.5',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
  // RFC 8018 / RFC 9579
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
  pbmac1: '1.2.840.113549.1.5.14',
  // X.520 name attributes
  commonName: '2.5.4.3',
  serialNumber: '2.5.4.5',
} as const;

/** Digests usable for the PKCS#12 MAC: output size `u` and appendix-B KDF block size `v`, in bytes. */
export const DIGESTS: Readonly<Record<string, { name: string; size: number; blockSize: number }>> = {
  '1.3.14.3.2.26': { name: 'sha1', size: 20, blockSize: 64 },
  '2.16.840.1.101.3.4.2.4': { name: 'sha224', size: 28, blockSize: 64 },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', size: 32, blockSize: 64 },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', size: 48, blockSize: 128 },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', size: 64, blockSize: 128 },
};

/** Algorithms recognised only to name them in an UNSUPPORTED_ALGORITHM message. */
export const KNOWN_UNSUPPORTED: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.5.3': 'pbeWithMD5AndDES-CBC (PKCS#5 v1.5)',
  '1.2.840.113549.1.5.6': 'pbeWithMD5AndRC2-CBC (PKCS#5 v1.5)',
  '1.2.840.113549.1.5.10': 'pbeWithSHA1AndDES-CBC (PKCS#5 v1.5)',
  '1.2.840.113549.1.5.11': 'pbeWithSHA1AndRC2-CBC (PKCS#5 v1.5)',
  '1.3.6.1.4.1.11591.4.11': 'scrypt key derivation',
  '1.2.840.113549.1.5.14': 'PBMAC1 integrity protection',
  '1.2.840.113549.2.5': 'MD5 MAC',
  '1.2.840.113549.1.7.2': 'public-key integrity mode (signedData)',
  '1.2.840.113549.1.7.3': 'public-key privacy mode (envelopedData)',
};
