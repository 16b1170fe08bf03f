import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/connect.ts';
import type { Environment } from '../environments.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import { toPage, type Page } from '../lib/page.ts';
import type { Logger } from '../log.ts';
import type { CredentialSource } from '../receiver/service.ts';
import { signXml } from '../xml/index.ts';
import { PORTAL_DOCUMENTS, recognisePortalDocument } from './portal-documents.ts';
import { countPortalSignatures, findPortalSignedXml, insertPortalSignature, listPortalSignatures, listStepMarks, type PortalSignatureRow, upsertStepMark } from './queries.ts';
import { progress, STEP_KEYS, STEP_STATES, type ProgressFacts, type ProgressStep, type StepMark, type StepState } from './steps.ts';

// DGII's certification, as the service helps a taxpayer through it: the portal documents it
// signs for the signed-in owner (each signature logged), and the progress of the portal's steps.

export function signatureView(row: PortalSignatureRow) {
  return {
    id: row.id,
    documento: row.documento,
    descripcion: PORTAL_DOCUMENTS[row.documento as keyof typeof PORTAL_DOCUMENTS]?.descripcion ?? row.documento,
    referencia: row.referencia,
    environment: row.environment,
    firmadoPor: { userId: row.userId, email: row.userEmail },
    sha256Original: row.inputSha256,
    createdAt: row.createdAt.toISOString(),
  };
}
export type PortalSignatureView = ReturnType<typeof signatureView>;

export interface CertificationDeps {
  sql: Sql;
  certificates: CredentialSource;
  rncOf: (tenantId: number) => Promise<string | undefined>;
  /** e-CF the tenant's receiver accepted in an environment (at least, up to 1 is enough). */
  receivedCount: (tenantId: number, environment: Environment) => Promise<number>;
  /** The imported test set's tally; null when there is none. */
  setTally: (tenantId: number, environment: Environment) => Promise<ProgressFacts['set']>;
  /** The service's public base URL (receiver URLs to register in the portal). */
  publicUrl: () => string;
  log: Logger;
}

const MAX_NOTA = 500;

export class CertificationService {
  private readonly deps: CertificationDeps;

  constructor(deps: CertificationDeps) {
    this.deps = deps;
  }

  private async rnc(tenantId: number): Promise<string> {
    const rnc = await this.deps.rncOf(tenantId);
    if (rnc === undefined) throw new AppError('UNAUTHORIZED');
    return rnc;
  }

  /** Signs a portal document for a signed-in user of the tenant; every signature is logged. */
  async sign(tenantId: number, userId: number, environment: Environment, body: Buffer): Promise<{ id: string; documento: string; xml: string; fileName: string }> {
    const rnc = await this.rnc(tenantId);
    const doc = recognisePortalDocument(body, rnc);
    const credential = await this.deps.certificates.credentials(tenantId, new Date());
    if (credential === null) throw new AppError('CONFLICT', 'No valid certificate to sign the document: upload one with POST /api/certificates');
    const signed = signXml(doc.xml, credential.privateKey, credential.certificate, credential.chain);
    const id = randomUUID();
    await insertPortalSignature(this.deps.sql, { id, tenantId, environment, userId, documento: doc.documento, referencia: doc.referencia === '' ? null : doc.referencia, inputSha256: doc.sha256, signedXml: signed });
    this.deps.log.info('portal document signed', { tenant: tenantId, user: userId, environment, signature: id, documento: doc.documento, referencia: doc.referencia, sha256: doc.sha256 });
    const root = PORTAL_DOCUMENTS[doc.documento].root.name;
    return { id, documento: doc.documento, xml: signed, fileName: `${root}_${rnc}_firmada.xml` };
  }

  async signatures(tenantId: number, after: string | undefined, pageSize: number): Promise<Page<PortalSignatureView>> {
    return toPage(await listPortalSignatures(this.deps.sql, tenantId, after, pageSize + 1), pageSize, signatureView);
  }

  async signedXml(tenantId: number, id: string): Promise<string> {
    const row = await findPortalSignedXml(this.deps.sql, tenantId, id);
    if (row === undefined) throw notFound('Signed portal document');
    return row.signedXml;
  }

  async progress(tenantId: number, environment: Environment): Promise<{ pasos: ProgressStep[]; completados: number; total: number }> {
    const rnc = await this.rnc(tenantId);
    const [firmadas, set, recibidos, marks] = await Promise.all([
      countPortalSignatures(this.deps.sql, tenantId, 'postulacion'),
      this.deps.setTally(tenantId, environment),
      this.deps.receivedCount(tenantId, environment),
      listStepMarks(this.deps.sql, tenantId, environment),
    ]);
    const facts: ProgressFacts = { postulacionFirmada: firmadas > 0, set, recibidos, receptorUrl: `${this.deps.publicUrl().replace(/\/+$/, '')}/${environment}/receptor/${rnc}` };
    const byKey = new Map<string, StepMark>(marks.map((m) => [m.paso, { estado: m.estado as StepState, nota: m.nota, updatedAt: m.updatedAt }]));
    const pasos = progress(facts, byKey);
    return { pasos, completados: pasos.filter((p) => p.estado === 'completado').length, total: pasos.length };
  }

  /** The taxpayer tells where a portal step stands. */
  async mark(tenantId: number, userId: number, environment: Environment, paso: string, body: unknown) {
    if (!STEP_KEYS.includes(paso)) throw notFound('Certification step');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError([{ path: '$', message: 'must be an object: { "estado": "completado", "nota": "…" }' }]);
    const { estado, nota, ...rest } = body as Record<string, unknown>;
    const errors = Object.keys(rest).map((k) => ({ path: k, message: 'is not a known field (estado, nota)' }));
    if (typeof estado !== 'string' || !(STEP_STATES as readonly string[]).includes(estado)) errors.push({ path: 'estado', message: `must be one of ${STEP_STATES.join(', ')}` });
    if (nota !== undefined && nota !== null && (typeof nota !== 'string' || nota.length > MAX_NOTA || /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(nota))) errors.push({ path: 'nota', message: `must be text of at most ${MAX_NOTA} characters` });
    if (errors.length > 0) throw validationError(errors);
    await upsertStepMark(this.deps.sql, { tenantId, environment, paso, estado: estado as string, nota: typeof nota === 'string' && nota.trim() !== '' ? nota.trim() : null, userId });
    const p = await this.progress(tenantId, environment);
    return p.pasos.find((s) => s.clave === paso);
  }
}
