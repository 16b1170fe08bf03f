import type { X509Certificate } from 'node:crypto';
import type { Config } from '../config.ts';
import { verifyChain } from '../crypto/x509/chain.ts';
import { type FetchCrl, RevocationChecker } from '../crypto/x509/revocation.ts';
import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';
import { guardedGet } from '../lib/guarded-get.ts';
import type { Logger } from '../log.ts';

// Who may sign what the receiver accepts (seeds, e-CF, ACECF). A valid XML signature only
// proves possession of the key in the certificate the signer attached; the certificate's
// subject (and so its RNC) is whatever the signer wrote, unless a trusted CA vouches for it.
//
// - With RECEIVER_TRUSTED_CA_FILE, in every environment, only certificates that chain to one
//   of its CAs are accepted: dates at the signing time, key usage, and revocation through the
//   CRLs the chain names (fetched through the egress guard).
// - Without it, eCF (production) refuses every sender; TesteCF and CerteCF accept any signer,
//   so two tenants of one service can exchange in tests, but mark it untrusted.
// - A CRL that cannot be had (down, too large, stale, refused by the guard, badly signed):
//   eCF refuses with CERTIFICATE_REVOCATION_UNKNOWN, a 503 (the sender may retry once the CA's
//   CRL is back; nothing is stored or acknowledged). TesteCF and CerteCF accept the signer,
//   mark it untrusted and log a warning. A certificate that names no http(s) CRL cannot be
//   checked and is accepted on its chain alone.

/** What is recorded of a signer: 'trusted' only when a configured CA vouched for it and no CRL said otherwise. */
export const SIGNER_TRUST = ['trusted', 'untrusted'] as const;
export type SignerTrust = (typeof SIGNER_TRUST)[number];

export type SignerVerdict =
  /** Accept the signer, recording `trust`. */
  | { kind: 'accepted'; trust: SignerTrust }
  /** The signer's certificate is not acceptable: for an e-CF an ARECF with motivo 2, else SIGNER_NOT_TRUSTED. */
  | { kind: 'refused'; reason: string }
  /** Nothing can be accepted now (no trust configured in eCF, revocation unknown in eCF): answer this error. */
  | { kind: 'error'; error: AppError };

const PRODUCTION: Environment = 'eCF';

export function signerNotTrusted(reason: string): AppError {
  return new AppError('SIGNER_NOT_TRUSTED', `El certificado del firmante no es de confianza: ${reason}`);
}

export class SignerTrustPolicy {
  private readonly anchors: readonly X509Certificate[] | null;
  private readonly revocation: RevocationChecker;
  private readonly log: Logger;

  constructor(options: { anchors: readonly X509Certificate[] | null; fetchCrl: FetchCrl; log: Logger }) {
    this.anchors = options.anchors;
    this.revocation = new RevocationChecker({ fetchCrl: options.fetchCrl });
    this.log = options.log;
  }

  /** True when a trust bundle is configured. */
  get configured(): boolean {
    return this.anchors !== null;
  }

  /** The error every sender gets in `environment` whatever it sends, or null: eCF without a trust bundle. */
  refusalFor(environment: Environment): AppError | null {
    if (this.anchors !== null || environment !== PRODUCTION) return null;
    return signerNotTrusted('este servicio no tiene configuradas las autoridades de certificación de confianza (RECEIVER_TRUSTED_CA_FILE), por lo que en eCF no acepta a ningún remitente');
  }

  /**
   * The verdict on a signer whose signature already verified with `leaf`; `offered` are the
   * other certificates of its KeyInfo, `signedAt` the time its validity is judged at.
   */
  async judge(environment: Environment, leaf: X509Certificate, offered: readonly X509Certificate[], signedAt: Date, now = new Date()): Promise<SignerVerdict> {
    const everyone = this.refusalFor(environment);
    if (everyone !== null) return { kind: 'error', error: everyone };
    if (this.anchors === null) return { kind: 'accepted', trust: 'untrusted' };
    const chain = verifyChain(leaf, offered, this.anchors, signedAt);
    if (!chain.ok) return { kind: 'refused', reason: chain.reason };
    const revocation = await this.revocation.check(chain.path, now);
    if (revocation.status === 'good') return { kind: 'accepted', trust: 'trusted' };
    if (revocation.status === 'revoked') return { kind: 'refused', reason: `el certificado está revocado (${revocation.reason})` };
    if (environment !== PRODUCTION) {
      this.log.warn('signer accepted without revocation status (test environment)', { environment, subject: leaf.subject.split('\n').join(', '), reason: revocation.reason });
      return { kind: 'accepted', trust: 'untrusted' };
    }
    this.log.warn('signer refused: revocation status unknown', { environment, subject: leaf.subject.split('\n').join(', '), reason: revocation.reason });
    return {
      kind: 'error',
      error: new AppError('CERTIFICATE_REVOCATION_UNKNOWN', `No se pudo comprobar si el certificado del firmante está revocado: ${revocation.reason}. Intente de nuevo más tarde.`, { headers: { 'retry-after': '60' } }),
    };
  }
}

/** The policy of this instance's configuration; CRLs are fetched through the egress guard. */
export function signerTrustPolicy(config: Config['receiver'], log: Logger): SignerTrustPolicy {
  const fetchCrl: FetchCrl = (url) => guardedGet(url, { timeoutMs: config.crlTimeoutMs, maxBytes: config.crlMaxBytes, allowPrivate: config.crlAllowPrivateNetworks });
  return new SignerTrustPolicy({ anchors: config.trustedCas, fetchCrl, log });
}

/** A verdict a caller that answers errors (not ARECFs) acts on: the recorded trust, or a throw. */
export function acceptedOrThrow(verdict: SignerVerdict): SignerTrust {
  if (verdict.kind === 'accepted') return verdict.trust;
  if (verdict.kind === 'refused') throw signerNotTrusted(verdict.reason);
  throw verdict.error;
}
