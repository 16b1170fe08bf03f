// One table so the API layer can map codes to 422 responses without re-wording them. No message may
// ever carry the password or key material: details only name structures, algorithms and offsets.
export const PKCS12_ERRORS = {
  MALFORMED: 'The certificate file is not a valid PKCS#12 (.p12/.pfx) file or is damaged.',
  BAD_PASSWORD: 'The certificate password is incorrect.',
  UNSUPPORTED_ALGORITHM: 'The certificate file is protected with an algorithm this service does not support.',
  NO_PRIVATE_KEY:
    'The certificate file does not contain a private key. Export it again including the private key.',
  NO_CERTIFICATE: 'The certificate file does not contain an X.509 certificate.',
} as const;

export type Pkcs12ErrorCode = keyof typeof PKCS12_ERRORS;

export class Pkcs12Error extends Error {
  readonly code: Pkcs12ErrorCode;

  constructor(code: Pkcs12ErrorCode, detail?: string, cause?: unknown) {
    const message = detail === undefined ? PKCS12_ERRORS[code] : `${PKCS12_ERRORS[code]} ${detail}`;
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'Pkcs12Error';
    this.code = code;
  }
}

export function malformed(detail: string): Pkcs12Error {
  return new Pkcs12Error('MALFORMED', `(${detail})`);
}
