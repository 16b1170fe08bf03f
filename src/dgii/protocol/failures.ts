import { PermanentAuthorityError, TransientAuthorityError } from '../authority.ts';
import { errorText } from './answers.ts';
import type { HttpAnswer } from './http.ts';

// What an answer of DGII that is not 2xx means: 5xx and the statuses that say "not now" are
// transient (worth another try later); any other refusal is permanent, with DGII's own
// explanation in the message.

const TRANSIENT_STATUSES = new Set([408, 425, 429]);

/** DGII's refusal of a commercial approval about an e-CF it does not hold (yet). */
const NOT_HELD_YET = /factura no encontrada/i;

/** TransientAuthorityError or PermanentAuthorityError for an answer that is not 2xx. */
export function failure(answer: HttpAnswer, purpose: string): Error {
  const detail = errorText(answer.json, answer.text);
  const message = `DGII answered HTTP ${answer.status} while ${purpose}${detail === null ? '' : `: ${detail}`}`;
  if (answer.status >= 500 || TRANSIENT_STATUSES.has(answer.status)) return new TransientAuthorityError(message);
  return new PermanentAuthorityError(message);
}

/**
 * failure() for the upload of a commercial approval. DGII takes an approval only of an e-CF it
 * holds; one that comes first (the emisor sent the e-CF to its buyer before DGII took it in) is
 * refused with 400 "Factura no encontrada": not a "no" about the approval, so it is transient
 * and the approval is sent again on its job's schedule.
 */
export function approvalFailure(answer: HttpAnswer, purpose: string): Error {
  const refused = failure(answer, purpose);
  if (answer.status === 400 && NOT_HELD_YET.test(refused.message)) return new TransientAuthorityError(`DGII does not hold the e-CF yet: ${refused.message}`);
  return refused;
}
