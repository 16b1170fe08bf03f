import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable, isUnstorableText } from '../db/errors.ts';
import { DeadlineExceeded } from '../lib/deadline.ts';
import { AppError, ERROR_CODES, errorEnvelope, type ErrorCode } from '../errors.ts';
import type { Logger } from '../log.ts';

// What a failed request answers: every error a request meets becomes an AppError, and every
// AppError is rendered in the one error envelope.

export function errorBody(err: AppError): string {
  return JSON.stringify(errorEnvelope(err));
}

/** The AppError a request's failure answers with; what is not an AppError is logged here. */
export function toAppError(err: unknown, requestId: string, log: Logger): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    log.warn('database unavailable', { requestId, err });
    return new AppError('SERVICE_UNAVAILABLE', undefined, { headers: { 'retry-after': '5' } });
  }
  if (err instanceof DeadlineExceeded) {
    log.warn('request deadline passed', { requestId, err });
    return new AppError('SERVICE_UNAVAILABLE', 'El servicio no pudo completar la solicitud a tiempo (la base de datos no respondió); reintente en unos segundos. Una solicitud con Idempotency-Key puede repetirse con la misma clave.', { headers: { 'retry-after': '5' } });
  }
  if (isUnstorableText(err)) {
    // An error line all the same: some input path lacks the check that should refuse this.
    log.error('text the database cannot store reached a query; the input path should refuse it', { requestId, err });
    return new AppError('VALIDATION_ERROR', 'The request contains characters that cannot be stored (such as U+0000)', { status: 400 });
  }
  log.error('unhandled error', { requestId, err });
  return new AppError('INTERNAL');
}

/**
 * The whole raw HTTP answer to a request Node's parser refused (`code` is its error's code),
 * in the same envelope, closing the connection: such a request never reaches a response object.
 */
export function malformedRequestAnswer(code: string | undefined, requestId: string): { status: number; text: string } {
  const errorCode: ErrorCode = code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'REQUEST_TIMEOUT' : 'INVALID_REQUEST';
  const status = ERROR_CODES[errorCode].status;
  const body = errorBody(new AppError(errorCode, errorCode === 'INVALID_REQUEST' ? 'The HTTP request is malformed' : undefined));
  return { status, text: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}` };
}
