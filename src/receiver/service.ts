import { randomUUID, type X509Certificate } from 'node:crypto';
import type { SigningCredential } from '../certificates/check.ts';
import type { Sql } from '../db/connect.ts';
import { buildArecfXml, ESTADO_ACUSE, type MotivoNoRecibido } from '../ecf/xml/index.ts';
import { APPROVAL_NOT_REQUIRED, takesApproval, tipoOfEncf } from '../ecf/exchange-rules.ts';
import type { Environment } from '../environments.ts';
import { AppError } from '../errors.ts';
import type { EventOutbox } from '../events/outbox.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { Logger } from '../log.ts';
import { insertJob } from '../queue/queries.ts';
import { signXml } from '../xml/index.ts';
import { assessAcecf, mismatch } from './assess-acecf.ts';
import { assessEcf, type AcknowledgedIds } from './assess-ecf.ts';
import { findTenantByRnc, type ReceiverTenant } from './auth-queries.ts';
import { findIssued, insertApproval, insertReceived, markIssuedApproval } from './queries.ts';
import { acceptedOrThrow, type SignerTrustPolicy } from './signer-trust.ts';
import { receivedEventPayload } from './views.ts';

/** Where the tenant's own signing certificate comes from (the CertificateStore). */
export interface CredentialSource {
  credentials(tenantId: number, now?: Date): Promise<SigningCredential | null>;
}

/** Body caps per upload. An e-CF of 1,000 lines with long descriptions stays well under 5 MiB. */
export const RECEIVER_BODY_LIMITS = {
  signedSeed: 64 * 1024,
  ecf: 5 * 1024 * 1024,
  acecf: 64 * 1024,
} as const;

const RNC_SHAPE = /^(\d{9}|\d{11})$/;
const TENANT_CACHE_MS = 60_000;

/** The /fe/* flows of a tenant's receiver; knows nothing of HTTP beyond AppError. */
export class ReceiverService {
  // A tenant's RNC never changes, so a found tenant may be remembered a while.
  private readonly tenants = new TtlCache<ReceiverTenant>(TENANT_CACHE_MS, 10_000);

  private readonly sql: Sql;
  private readonly outbox: EventOutbox;
  private readonly certificates: CredentialSource;
  private readonly log: Logger;
  private readonly trust: SignerTrustPolicy;

  constructor(sql: Sql, outbox: EventOutbox, certificates: CredentialSource, log: Logger, trust: SignerTrustPolicy) {
    this.sql = sql;
    this.outbox = outbox;
    this.certificates = certificates;
    this.log = log;
    this.trust = trust;
  }

  /** The tenant whose receiver base names this RNC; 404 when there is none. */
  async tenant(rnc: string): Promise<ReceiverTenant> {
    const cached = this.tenants.get(rnc);
    if (cached !== undefined) return cached;
    const found = RNC_SHAPE.test(rnc) ? await findTenantByRnc(this.sql, rnc) : undefined;
    if (found === undefined) throw new AppError('NOT_FOUND', `No hay un receptor electrónico para el RNC ${rnc.slice(0, 20)}`);
    this.tenants.set(rnc, found);
    return found;
  }

  /**
   * The signed ARECF answering an uploaded e-CF, Estado 0 (stored, ecf.received recorded) or 1 with
   * its motivo. `senderHolderId`: whose certificate the sender's token was obtained with.
   */
  async receiveEcf(tenant: ReceiverTenant, environment: Environment, upload: Buffer, senderHolderId: string | null, now = new Date()): Promise<string> {
    const everyone = this.trust.refusalFor(environment);
    if (everyone !== null) throw everyone;
    const credential = await this.signingCredential(tenant, now);
    const judge = (leaf: X509Certificate, offered: readonly X509Certificate[], signedAt: Date) => this.trust.judge(environment, leaf, offered, signedAt, now);
    const assessment = await assessEcf(upload, tenant.rnc, senderHolderId, now, RECEIVER_BODY_LIMITS.ecf, judge);
    if (assessment.kind === 'unreadable') throw new AppError('INVALID_REQUEST', assessment.message);
    if (assessment.kind === 'refused') {
      this.log.info('e-CF not received', { tenant: tenant.id, environment, encf: assessment.ids.encf, motivo: assessment.motivo, detail: assessment.detail });
      return acknowledge(credential, assessment.ids, assessment.motivo, now);
    }
    const { ids, document } = assessment;
    const arecf = acknowledge(credential, ids, null, now);
    const stored = await this.sql.begin(async (tx) => {
      const row = await insertReceived(tx, { id: randomUUID(), tenantId: tenant.id, environment, document, arecfXml: arecf });
      if (row === undefined) return false;
      await this.outbox.record(tx, tenant.id, 'ecf.received', receivedEventPayload(row));
      // Asked of DGII in the background (verification.ts): the sender is not kept waiting.
      await insertJob(tx, { kind: 'receiver.verify', payload: { receivedId: row.id } });
      return true;
    });
    if (!stored) {
      this.log.info('e-CF not received', { tenant: tenant.id, environment, encf: ids.encf, motivo: 3 });
      return acknowledge(credential, ids, 3, now);
    }
    this.log.info('e-CF received', { tenant: tenant.id, environment, encf: ids.encf, rncEmisor: ids.rncEmisor, signerTrust: document.signerTrust });
    return arecf;
  }

  /** Stores a commercial approval of an e-CF the tenant issued; 400 with the reason when it cannot. */
  async receiveApproval(tenant: ReceiverTenant, environment: Environment, upload: Buffer, now = new Date()): Promise<{ encf: string; estado: 1 | 2 }> {
    const everyone = this.trust.refusalFor(environment);
    if (everyone !== null) throw everyone;
    const assessed = assessAcecf(upload, now, RECEIVER_BODY_LIMITS.acecf);
    if ('problem' in assessed) throw new AppError('INVALID_REQUEST', assessed.problem);
    // Before any lookup: an untrusted signer learns nothing about the tenant's documents.
    const signerTrust = acceptedOrThrow(await this.trust.judge(environment, assessed.signer.certificate, assessed.signer.chain, now, now));
    const approval = assessed.approval;
    if (approval.rncEmisor !== tenant.rnc) {
      throw new AppError('INVALID_REQUEST', `El RNCEmisor ${approval.rncEmisor} de la aprobación comercial no es el RNC ${tenant.rnc} de este receptor`);
    }
    // DGII's v1.6 table: no commercial approval about types 32, 41, 43, 46 and 47; DGII's own words.
    const tipo = tipoOfEncf(approval.encf);
    if (tipo !== null && !takesApproval(tipo)) throw new AppError('INVALID_REQUEST', `${APPROVAL_NOT_REQUIRED} (${tipo})`);
    const issued = await findIssued(this.sql, tenant.id, environment, approval.encf);
    if (issued === undefined) throw new AppError('INVALID_REQUEST', `El RNC ${tenant.rnc} no ha emitido el e-CF ${approval.encf} en ${environment}`);
    const problem = mismatch(approval, issued);
    if (problem !== null) throw new AppError('INVALID_REQUEST', problem);
    // Stored, shown on the document and announced (ecf.commercial_approval) in one transaction.
    const result = await this.sql.begin(async (tx) => {
      const inserted = await insertApproval(tx, {
        id: randomUUID(),
        tenantId: tenant.id,
        documentId: issued.id,
        rncComprador: approval.rncComprador,
        estado: approval.estado,
        detalleMotivoRechazo: approval.detalleMotivoRechazo,
        fechaHoraAprobacion: approval.fechaHoraAprobacion,
        xml: approval.xml,
        signerTrust,
      });
      if (inserted.inserted) {
        const shown = { estado: approval.estado === 1 ? 'aprobado' : 'rechazado', motivo: approval.detalleMotivoRechazo, fecha: approval.fechaHoraAprobacion, signerTrusted: signerTrust === 'trusted' } as const;
        const sequence = await markIssuedApproval(tx, issued.id, shown);
        await this.outbox.record(tx, tenant.id, 'ecf.commercial_approval', {
          internalTrackId: issued.id, encf: approval.encf, environment, rncComprador: approval.rncComprador, aprobacionComercial: shown, timestamp: new Date().toISOString(),
        }, { sequence });
      }
      return inserted;
    });
    // The same approval sent again (a retry) is answered as the first; a different one is not taken.
    if (!result.inserted && result.existingXml !== approval.xml) {
      throw new AppError('INVALID_REQUEST', `Ya se recibió una aprobación comercial para el e-CF ${approval.encf}`);
    }
    this.log.info('commercial approval received', { tenant: tenant.id, environment, encf: approval.encf, estado: approval.estado, signerTrust });
    return { encf: approval.encf, estado: approval.estado };
  }

  /**
   * The tenant's certificate. Without one no ARECF can be signed, which no retry by the
   * sender fixes until the tenant uploads one: 409, not a transient 503.
   */
  private async signingCredential(tenant: ReceiverTenant, now: Date): Promise<SigningCredential> {
    const credential = await this.certificates.credentials(tenant.id, now);
    if (credential !== null) return credential;
    this.log.warn('receiver has no valid certificate to sign ARECF', { tenant: tenant.id });
    throw new AppError('CONFLICT', `El receptor ${tenant.rnc} no tiene un certificado digital vigente con el que firmar el acuse de recibo (ARECF); no puede recibir e-CF hasta que cargue uno`);
  }
}

/**
 * Builds and signs the ARECF: Estado 0 when `motivo` is null, else 1 with that motivo. The
 * identifiers were checked against the ARECF schema and the store hands out only usable
 * keys, so a throw here is a broken invariant (a 500), never the sender's fault.
 */
function acknowledge(credential: SigningCredential, ids: AcknowledgedIds, motivo: MotivoNoRecibido | null, now: Date): string {
  const xml = buildArecfXml({
    rncEmisor: ids.rncEmisor,
    rncComprador: ids.rncComprador,
    encf: ids.encf,
    estado: motivo === null ? ESTADO_ACUSE.recibido : ESTADO_ACUSE.noRecibido,
    ...(motivo === null ? {} : { codigoMotivoNoRecibido: motivo }),
    fechaHoraAcuseRecibo: now,
  });
  return signXml(xml, credential.privateKey, credential.certificate, credential.chain);
}
