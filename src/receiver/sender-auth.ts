import { createHash, randomBytes } from 'node:crypto';
import { bearerToken } from '../auth/authenticator.ts';
import { certificateProblem, describeCertificate } from '../certificates/check.ts';
import type { Sql } from '../db/connect.ts';
import { SEED_TTL_MS, seedModelXml } from '../ecf/xml/seed.ts';
import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';
import { textAt, verifyXml } from '../xml/index.ts';
import { consumeSeed, findLiveToken, insertSeed, insertToken, type ReceiverTenant, type TokenRow } from './auth-queries.ts';
import { acceptedOrThrow, type SignerTrustPolicy } from './signer-trust.ts';

// How another taxpayer authenticates to a tenant's receiver, as DGII's own services do: a
// random single-use seed of this tenant and environment, signed by the sender with its
// certificate, earns a one-hour token for this tenant and environment only. Tokens are
// random and stored hashed, so a copy of the database cannot be used to send documents.

export const RECEIVER_TOKEN_TTL_MS = 3_600_000;

export interface IssuedToken {
  token: string;
  expira: Date;
  expedido: Date;
}

const WWW_AUTHENTICATE = { 'www-authenticate': 'Bearer' };

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function refused(message: string): AppError {
  return new AppError('INVALID_REQUEST', message);
}

export class SenderAuth {
  private readonly sql: Sql;
  private readonly trust: SignerTrustPolicy;

  constructor(sql: Sql, trust: SignerTrustPolicy) {
    this.sql = sql;
    this.trust = trust;
  }

  /** DGII's seed document, with a fresh seed for this tenant and environment. */
  async seed(tenant: ReceiverTenant, environment: Environment, now = new Date()): Promise<string> {
    const value = randomBytes(64).toString('base64');
    await insertSeed(this.sql, { value, tenantId: tenant.id, environment, ttlMs: SEED_TTL_MS });
    return seedModelXml(value, now.getTime());
  }

  /**
   * A token for a signed seed this tenant issued; 400 for the seed or signature, 401 for the
   * certificate's dates or key, 403 SIGNER_NOT_TRUSTED when no trusted CA vouches for it (503
   * CERTIFICATE_REVOCATION_UNKNOWN in eCF when its revocation cannot be checked).
   */
  async validate(tenant: ReceiverTenant, environment: Environment, signedSeed: Buffer, maxBytes: number, now = new Date()): Promise<IssuedToken> {
    const verified = verifyXml(signedSeed, { maxBytes });
    if (!verified.valid) throw refused(`La firma de la semilla no es válida: ${verified.reason}`);
    const root = verified.document.root;
    if (root.localName !== 'SemillaModel' || root.namespaceURI !== '') throw refused('El documento firmado no es una semilla (SemillaModel)');
    const value = (textAt(root, ['valor']) ?? '').trim();
    // Consumed before the certificate is judged: a seed is good for one attempt, whatever its outcome.
    if (value === '' || !(await consumeSeed(this.sql, { value, tenantId: tenant.id, environment }))) {
      throw refused('La semilla no fue emitida por este receptor, expiró o ya fue utilizada');
    }
    const problem = certificateProblem(verified.certificate, now);
    if (problem !== null) throw new AppError('UNAUTHORIZED', problem, { headers: WWW_AUTHENTICATE });
    // The token only carries the holder's RNC: whether it was trusted is judged again on each document.
    acceptedOrThrow(await this.trust.judge(environment, verified.certificate, verified.chain, now, now));

    const token = randomBytes(32).toString('base64url');
    const { issuedAt, expiresAt } = await insertToken(this.sql, {
      tokenHash: hashToken(token),
      tenantId: tenant.id,
      environment,
      holderId: describeCertificate(verified.certificate).holderId,
      holderSubject: verified.certificate.subject.split('\n').join(', '),
      ttlMs: RECEIVER_TOKEN_TTL_MS,
    });
    return { token, expira: expiresAt, expedido: issuedAt };
  }

  /** The sender behind `Authorization: Bearer …`, if the token is live and was issued for this tenant and environment. */
  async authenticate(tenant: ReceiverTenant, environment: Environment, authorization: string | undefined): Promise<TokenRow> {
    let token: string | null;
    try {
      token = bearerToken(authorization);
    } catch {
      token = null;
    }
    // Longer than any token this receiver issues: refused without a query.
    const row = token === null || token.length > 128 ? undefined : await findLiveToken(this.sql, hashToken(token));
    if (row === undefined || row.tenantId !== tenant.id || row.environment !== environment) {
      throw new AppError('UNAUTHORIZED', 'No autorizado: envíe en Authorization (Bearer) un token vigente obtenido de este receptor con /fe/autenticacion', { headers: WWW_AUTHENTICATE });
    }
    return row;
  }
}
