// The single table of error codes the API can answer with. Handlers throw AppError
// with one of these codes; src/http/error-response.ts turns it into the error envelope.
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, message: 'The request is malformed' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required' },
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid credentials' },
  TOKEN_EXPIRED: { status: 401, message: 'The access token has expired; refresh it' },
  INVALID_TOKEN: { status: 401, message: 'The token is invalid' },
  INVALID_API_KEY: { status: 403, message: 'Invalid API key' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  REGISTRATION_DISABLED: { status: 403, message: 'Public registration is disabled on this server' },
  SIGNER_NOT_TRUSTED: { status: 403, message: 'The signer\'s certificate does not chain to a trusted certification authority' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state' },
  EMAIL_ALREADY_REGISTERED: { status: 409, message: 'A user with this email already exists' },
  RNC_ALREADY_REGISTERED: { status: 409, message: 'A tenant with this RNC already exists' },
  ENCF_ALREADY_USED: { status: 409, message: 'This eNCF was already used by the tenant' },
  DOCUMENT_NOT_SIGNED: { status: 409, message: 'The document is not signed yet' },
  ENCF_ANNULLED: { status: 409, message: 'This eNCF was annulled and can never be emitted' },
  SEQUENCE_EXHAUSTED: { status: 409, message: 'No authorised eNCF range of this type has a number left' },
  IDEMPOTENCY_KEY_CONFLICT: { status: 409, message: 'The Idempotency-Key was already used with a different request' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: 'A request with this Idempotency-Key is still being processed' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type' },
  EXPECTATION_FAILED: { status: 417, message: 'The Expect header names an expectation this server does not support' },
  VALIDATION_ERROR: { status: 422, message: 'The request is not valid' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large' },
  INTERNAL: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is temporarily unavailable; retry later' },
  CERTIFICATE_REVOCATION_UNKNOWN: { status: 503, message: 'The revocation status of the signer\'s certificate cannot be established now; retry later' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: FieldError[]; headers?: Record<string, string>; cause?: unknown; status?: number } = {},
  ) {
    super(message ?? ERROR_CODES[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The body of every error response: { success: false, error: { code, message, details? } }. */
export function errorEnvelope(err: AppError): { success: false; error: { code: ErrorCode; message: string; details?: FieldError[] } } {
  return { success: false, error: { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) } };
}

/** 422 with one entry per invalid field. */
export function validationError(details: FieldError[], message = 'The request is not valid'): AppError {
  return new AppError('VALIDATION_ERROR', message, { details });
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('NOT_FOUND', `${what} not found`);
}

/** The message of anything thrown: an Error's message, else its string form. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
