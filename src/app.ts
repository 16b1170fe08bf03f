import { readFileSync } from 'node:fs';
import type { Config } from './config.ts';
import type { Environment } from './environments.ts';
import { Authenticator } from './auth/authenticator.ts';
import { IdentityService } from './auth/identity.ts';
import { PasswordHasher } from './auth/passwords.ts';
import { authRoutes } from './auth/routes.ts';
import { IDENTITY_SCHEMAS } from './auth/schemas.ts';
import { TokenIssuer } from './auth/tokens.ts';
import { deriveKeys, loadMasterKey } from './crypto/master-key.ts';
import { openDatabase, type Database } from './db/connect.ts';
import { checkMasterKey } from './db/key-check.ts';
import { migrate } from './db/migrate.ts';
import { buildOpenApi } from './http/openapi.ts';
import { Router } from './http/router.ts';
import { createHttpServer } from './http/server.ts';
import { createLogger, type Logger } from './log.ts';
import { RateLimits } from './ratelimit/limiter.ts';
import { systemRoutes } from './system/routes.ts';
import type { TaxAuthority } from './dgii/authority.ts';
import type { DgiiSimulator } from './dgii/simulator/index.ts';
import { type RunningAuthority, startTaxAuthority } from './dgii/tax-authority.ts';
import { DgiiStatusMonitor } from './dgii/status-monitor.ts';
import { dgiiStatusRoutes, DGII_STATUS } from './dgii/routes.ts';
import { certificateRoutes } from './certificates/routes.ts';
import { CERTIFICATE_SCHEMAS } from './certificates/schemas.ts';
import { ParserPool } from './certificates/parser-pool.ts';
import { CertificateStore } from './certificates/store.ts';
import { documentJobs } from './documents/pipeline.ts';
import { documentRoutes } from './documents/routes.ts';
import { documentReportRoutes } from './documents/report-routes.ts';
import { DocumentReports } from './documents/reports.ts';
import { DashboardAssets } from './dashboard/assets.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { DOCUMENT_SCHEMAS } from './documents/schemas.ts';
import { DocumentService, documentUsage } from './documents/service.ts';
import { annulmentJob } from './documents/annulment-job.ts';
import { annulmentRoutes } from './documents/annulment-routes.ts';
import { AnnulmentService } from './documents/annulments.ts';
import { expiryJob, scheduleExpiryCheck } from './sequences/expiry-job.ts';
import { sequenceRoutes } from './sequences/routes.ts';
import { SEQUENCE_SCHEMAS } from './sequences/schemas.ts';
import { SequenceService } from './sequences/service.ts';
import { EventOutbox } from './events/outbox.ts';
import { IdempotencyStore } from './idempotency/idempotent.ts';
import { maintenanceJob, scheduleMaintenance } from './maintenance/purge.ts';
import { repairJob, scheduleRepair } from './maintenance/repair.ts';
import { jobRepairers } from './maintenance/repairers.ts';
import { WorkerRuntime } from './queue/runtime.ts';
import { JobWakeups } from './queue/wakeups.ts';
import { DeliveryEngine } from './webhooks/delivery.ts';
import { webhookEventDocs } from './webhooks/event-docs.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { WEBHOOK_SCHEMAS } from './webhooks/schemas.ts';
import { WebhookService } from './webhooks/service.ts';
import { WebhookSettings } from './webhooks/settings.ts';
import { ServiceMetrics } from './metrics/metrics.ts';
import { jobGauges } from './queue/gauges.ts';
import { documentGauges } from './documents/gauges.ts';
import { certificateGauges } from './certificates/gauges.ts';
import { metricsRoutes } from './metrics/routes.ts';
import type { GaugeFamily } from './metrics/registry.ts';
import { receivedDocumentRoutes } from './receiver/listing-routes.ts';
import { ReceivedDocuments } from './receiver/received-documents.ts';
import { receiverRoutes } from './receiver/routes.ts';
import { RECEIVER_SCHEMAS } from './receiver/schemas.ts';
import { SenderAuth } from './receiver/sender-auth.ts';
import { EMPTY_DIRECTORY } from './dgii/directory.ts';
import { buyerDeliveryJob } from './documents/buyer-delivery.ts';
import { BuyerEmail } from './documents/buyer-email.ts';
import { emailRoutes } from './documents/email-routes.ts';
import { TenantLogos } from './documents/logo.ts';
import { logoRoutes } from './documents/logo-routes.ts';
import { FeClient } from './exchange/fe-client.ts';
import { approvalRoutes } from './receiver/approval-routes.ts';
import { approvalSendJob, BuyerApprovals } from './receiver/buyer-approval.ts';
import { ReceiverSettings } from './receiver/settings.ts';
import { receivedVerificationJob } from './receiver/verification.ts';
import { ownDirectory } from './receiver/own-directory.ts';
import { invoicingRoutes } from './invoicing/routes.ts';
import { INVOICING_SCHEMAS } from './invoicing/schemas.ts';
import { InvoicingService } from './invoicing/service.ts';
import { ReceiverService } from './receiver/service.ts';
import { signerTrustPolicy } from './receiver/signer-trust.ts';
import { commercialApprovalRoutes } from './approvals/routes.ts';
import { APPROVAL_SCHEMAS } from './approvals/schemas.ts';
import { approvalRequestJob, CommercialApprovals } from './approvals/service.ts';
import { certificationRoutes } from './certification/routes.ts';
import { CERTIFICATION_SCHEMAS } from './certification/schemas.ts';
import { CertificationService } from './certification/service.ts';
import { TestSets } from './certification/test-sets.ts';

export interface Service {
  url: string;
  port: number;
  db: Database;
  router: Router;
  rateLimits: RateLimits;
  runtime: WorkerRuntime;
  /** Runs webhook deliveries only, with their own concurrency, so slow receivers never hold up submissions. */
  deliveries: WorkerRuntime;
  outbox: EventOutbox;
  /** The threads that read uploaded certificate files. */
  certificateParsers: ParserPool;
  /** The in-process DGII simulator when TAX_AUTHORITY=simulator (and no authority was passed in). */
  simulator: DgiiSimulator | null;
  /** DGII's service status and maintenance windows as this instance last read them. */
  dgiiStatus: DgiiStatusMonitor;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** A database opened by the caller (tests sharing one database between instances); not closed by close(). */
  database?: Database;
  /** Replaces the configured tax authority (tests of failure paths). */
  authority?: TaxAuthority;
}

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Wires every component together and starts listening. The composition root. */
export async function startService(config: Config, options: StartOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config.logLevel);
  const db = options.database ?? (await openDatabase(config, log));
  let dgii: RunningAuthority | null = null;
  let closeStatus = async (): Promise<void> => {};
  const certificateParsers = new ParserPool();
  try {
    await migrate(db.sql, log);
    const master = await loadMasterKey(config, log);
    await checkMasterKey(db.sql, master, log);
    const keys = deriveKeys(master);
    const hasher = new PasswordHasher(config.auth.scryptLogN, config.auth.scryptMaxConcurrent, config.auth.scryptMaxQueue, config.auth.scryptUnknownEmailsPerMinute);
    const authenticator = new Authenticator(db.sql, keys['jwt-signing'], config.auth, log);
    const tokens = new TokenIssuer(db.sql, keys['jwt-signing'], config.auth, log, authenticator);
    const rateLimits = new RateLimits(config.rateLimits);
    const identity = new IdentityService(db.sql, hasher, tokens, authenticator, log, rateLimits);
    const outbox = new EventOutbox();
    const idempotency = new IdempotencyStore(db.sql, config.idempotency, log);
    const certificates = new CertificateStore(db.sql, keys['certificates'], (file, password, owner) => certificateParsers.parse(file, password, owner));
    // The simulator's directory lists this service's tenants at its public address, known once it listens.
    let ownUrl = config.publicUrl ?? '';
    const metrics = new ServiceMetrics(rateLimits, [() => jobGauges(db.sql), () => webhooks.gauges(), () => documentGauges(db.sql), () => certificateGauges(db.sql)], [(): GaugeFamily[] => dgiiStatus.gauges()]);
    const extras = { directoryCacheTtlMs: config.exchange.directoryCacheTtlMs, simulatedDirectory: ownDirectory(db.sql, () => ownUrl), onDgiiRequest: metrics.onDgiiRequest, onStatusRequest: metrics.onDgiiRequest };
    dgii = options.authority === undefined
      ? await startTaxAuthority(config.authority, (tenantId) => certificates.credentials(tenantId), log, extras)
      : { authority: options.authority, simulator: null, client: null, directory: EMPTY_DIRECTORY, status: null, close: async () => {} };
    const dgiiStatus = new DgiiStatusMonitor({ client: dgii.status, refreshMs: config.authority.statusRefreshMs, marginMs: config.authority.maintenanceMarginMs, log: log.child({ component: 'dgii-status' }) });
    const maintenanceWait = (environment: Environment) => dgiiStatus.pauseFor(environment);
    const { authority, simulator } = dgii;
    const closeAuthority = dgii.close;
    const fe = new FeClient({ timeoutMs: config.exchange.timeoutMs, allowPrivate: config.exchange.allowPrivateNetworks });
    // A job enqueued here wakes this instance's runtime at once, and idle ones elsewhere by NOTIFY.
    const wakeups = new JobWakeups(db, log);
    const sequences = new SequenceService(db.sql, outbox, config.sequences, documentUsage);
    const documents = new DocumentService(db.sql, outbox, () => {
      runtime.nudge();
      wakeups.announce('document.submit');
    }, async (tenantId) => (await identity.tenant(tenantId))?.rnc, sequences);
    const email = new BuyerEmail({
      sql: db.sql, outbox, config: config.mail, log,
      pdf: (doc) => documents.printed(doc.tenantId, doc.environment, doc.id, 'carta'),
      onQueued: () => runtime.nudge(),
    });
    outbox.onEvent(email.onEvent);
    const annulments = new AnnulmentService(db.sql, sequences, (tenantId) => documents.rncOf(tenantId), () => runtime.nudge());
    const buyerApprovals = new BuyerApprovals({ sql: db.sql, certificates, onQueued: () => runtime.nudge() });
    const submitPolicy = { maxAttempts: config.authority.submitMaxAttempts, backoffBaseMs: config.authority.retryBaseMs, backoffMaxMs: config.authority.retryMaxMs };
    const runtime: WorkerRuntime = new WorkerRuntime(db.sql, log, config.queue, {
      ...documentJobs({ sql: db.sql, authority, credentials: (tenantId, now) => certificates.credentials(tenantId, now), outbox, directory: dgii.directory, config: config.authority, log, maintenanceWait }),
      'annulment.submit': annulmentJob({ sql: db.sql, sequences, authority, credentials: (tenantId, now) => certificates.credentials(tenantId, now), outbox, policy: submitPolicy, log, maintenanceWait }),
      'sequences.expiry': expiryJob(sequences, log),
      'exchange.deliver': buyerDeliveryJob({ sql: db.sql, judgeSigner: (env, leaf, offered, at) => signerTrust.judge(env, leaf, offered, at), outbox, directory: dgii.directory, fe, credentials: (tenantId, now) => certificates.credentials(tenantId, now), config: config.exchange, log }),
      'exchange.approval': approvalSendJob({ sql: db.sql, outbox, directory: dgii.directory, dgii: dgii.client, fe, certificates, config: config.exchange, log, maintenanceWait }),
      'receiver.verify': receivedVerificationJob({ sql: db.sql, dgii: dgii.client, outbox, approvals: buyerApprovals, config: config.exchange, log, maintenanceWait }),
      'email.send': email.job(),
      'approval.send': approvalRequestJob({ sql: db.sql, directory: dgii.directory, dgii: dgii.client, fe, certificates, config: config.exchange, log, maintenanceWait }),
      'maintenance.purge': maintenanceJob({ idempotencyKeys: (batch) => idempotency.purgeExpired(batch), sessions: () => identity.purgeExpiredSessions() }, log),
      'maintenance.repair': repairJob({ sql: db.sql, repairers: jobRepairers(config), everyMs: config.queue.repairIntervalMs, log, onRepaired: metrics.onRepaired }),
    });
    const webhookSettings = new WebhookSettings(db.sql, keys['webhook-secrets'], config.webhooks);
    // The deliveries a state change queues are claimed at once, not at the next poll; other
    // instances find them by polling (announcing each statement's would wake them all).
    const engine = new DeliveryEngine(db.sql, webhookSettings, config.webhooks, `ecf-service-webhooks/${VERSION}`, log, (tenantIds) => {
      for (const tenantId of tenantIds) deliveries.nudgeFor('webhook.deliver', { tenantId });
    });
    outbox.onEventInStatement(engine.onEvent);
    const deliveries = new WorkerRuntime(db.sql, log, {
      pollIntervalMs: config.webhooks.pollIntervalMs,
      concurrency: config.webhooks.concurrency,
      // Claimed ahead of free slots: a small batch, so idle instances are not starved of deliveries.
      batchSize: Math.min(config.webhooks.concurrency, 20),
      leaseMs: config.queue.leaseMs,
    }, { 'webhook.deliver': engine.job() });
    const webhooks = new WebhookService(db.sql, outbox, webhookSettings, engine, config.webhooks.timeoutMs, () => {
      deliveries.nudge();
      wakeups.announce('webhook.deliver');
    });

    const signerTrust = signerTrustPolicy(config.receiver, log);
    const commercialApprovals = new CommercialApprovals({ sql: db.sql, certificates, rncOf: async (tenantId) => (await identity.tenant(tenantId))?.rnc, onQueued: () => runtime.nudge() });
    const receivedDocuments = new ReceivedDocuments(db.sql);
    const documentByEncf = async (tenantId: number, environment: Environment, encf: string) => {
      const [d] = (await documents.list({ tenantId, environment, encf, pageSize: 1 })).items;
      return d === undefined ? null : { id: d.internalTrackId, estado: d.estado, detalle: d.dgiiMessage === null || d.dgiiMessage === '' ? null : d.dgiiMessage };
    };
    const testSets = new TestSets({
      sql: db.sql,
      rncOf: async (tenantId) => (await identity.tenant(tenantId))?.rnc,
      emit: async (tenantId, environment, body) => {
        const { view } = await documents.emit(tenantId, environment, body, async () => {});
        return { id: view.internalTrackId, estado: view.estado, detalle: null };
      },
      documentByEncf,
      approvals: commercialApprovals,
      printed: (tenantId, environment, id) => documents.printed(tenantId, environment, id, 'carta'),
      signedXml: (tenantId, environment, id) => documents.signedXml(tenantId, environment, id),
    });
    const certification = new CertificationService({
      sql: db.sql,
      certificates,
      rncOf: async (tenantId) => (await identity.tenant(tenantId))?.rnc,
      receivedCount: async (tenantId, environment) => (await receivedDocuments.list({ tenantId, environment, pageSize: 1 })).items.length,
      setTally: (tenantId, environment) => testSets.tally(tenantId, environment),
      publicUrl: () => config.publicUrl ?? ownUrl,
      log,
    });
    const router = new Router();
    let openapi: Record<string, unknown> | null = null;
    const routes = [
      ...systemRoutes({
        sql: db.sql,
        openapi: () => (openapi ??= buildOpenApi(router.routes, { version: VERSION, serverUrl: config.publicUrl, schemas: { ...IDENTITY_SCHEMAS, ...DOCUMENT_SCHEMAS, ...CERTIFICATE_SCHEMAS, ...WEBHOOK_SCHEMAS, ...RECEIVER_SCHEMAS, ...SEQUENCE_SCHEMAS, ...APPROVAL_SCHEMAS, ...CERTIFICATION_SCHEMAS, ...INVOICING_SCHEMAS, DgiiStatus: DGII_STATUS }, webhooks: webhookEventDocs(config.webhooks) })),
      }),
      ...authRoutes({ config, identity, tokens, authenticator }),
      // Before documentRoutes: /documentos-ecf/export must not be read as a document id.
      ...documentReportRoutes(new DocumentReports(db.sql, (tenantId, since) => webhooks.deliveryTrouble(tenantId, since))),
      ...documentRoutes({ documents, idempotency, signingReady: (tenantId) => certificates.canSign(tenantId) }),
      ...emailRoutes(email),
      ...logoRoutes(new TenantLogos(db.sql)),
      ...sequenceRoutes({ sequences, idempotency }),
      ...annulmentRoutes({ documents, annulments, sequences, idempotency }),
      ...certificateRoutes({ certificates }),
      ...invoicingRoutes({ invoicing: new InvoicingService(db.sql, dgii.directory, (tenantId) => documents.rncOf(tenantId)) }),
      ...dashboardRoutes({ assets: new DashboardAssets(log), registrationEnabled: config.registrationEnabled, sequenceExpiryWarningDays: config.sequences.expiryWarningDays }),
      ...webhookRoutes({ settings: webhookSettings, webhooks, attemptTimeoutMs: config.webhooks.timeoutMs }),
      ...metricsRoutes({ metrics, token: config.metricsToken }),
      ...receiverRoutes({ receiver: new ReceiverService(db.sql, outbox, certificates, log, signerTrust), auth: new SenderAuth(db.sql, signerTrust), crlWaitMs: 2 * config.receiver.crlTimeoutMs }),
      ...receivedDocumentRoutes(receivedDocuments, new ReceiverSettings(db.sql)),
      ...approvalRoutes({ approvals: buyerApprovals, idempotency }),
      ...commercialApprovalRoutes({ approvals: commercialApprovals, idempotency }),
      ...certificationRoutes({ certification, sets: testSets }),
      ...dgiiStatusRoutes({ monitor: dgiiStatus }),
    ];
    for (const route of routes) router.add(route);

    const http = createHttpServer({ config, log, router, authenticator, rateLimits, onCompleted: metrics.onRequest });
    dgiiStatus.start();
    closeStatus = () => dgiiStatus.stop();
    if (config.queue.workersEnabled) {
      await scheduleMaintenance(db.sql);
      await scheduleExpiryCheck(db.sql);
      await scheduleRepair(db.sql);
      runtime.start();
      deliveries.start();
      await wakeups.listen((kind) => {
        for (const r of [runtime, deliveries]) if ((r.jobKinds as readonly string[]).includes(kind)) r.nudge();
      }).catch((err: unknown) => log.warn('could not listen for job wake-ups; polling only', { err }));
    }
    const { url, port } = await http.listen();
    if (ownUrl === '') ownUrl = url;
    log.info('listening', {
      url,
      dashboard: `${config.publicUrl ?? url}/dashboard/`,
      database: db.kind,
      version: VERSION,
      node: process.version,
      pid: process.pid,
      workers: config.queue.workersEnabled,
      taxAuthority: options.authority === undefined ? config.authority.kind : 'custom',
    });
    if (config.authority.kind === 'simulator' && config.nodeEnv === 'production') log.warn('TAX_AUTHORITY=simulator: documents go to the built-in DGII simulator, not to DGII');
    if (config.receiver.trustedCas === null) log.warn('RECEIVER_TRUSTED_CA_FILE is not set: the receiver refuses every sender in eCF, and accepts any signer in TesteCF and CerteCF marked untrusted');
    else log.info('receiver trust anchors loaded', { file: config.receiver.trustedCaFile, certificates: config.receiver.trustedCas.length });
    if (config.webhooks.allowPrivateNetworks && config.nodeEnv === 'production') {
      log.warn('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: webhooks may be sent to loopback, private and link-local addresses, this host and its network included; leave it unset in production');
    }
    return {
      url, port, db, router, rateLimits, runtime, deliveries, outbox, certificateParsers, simulator, dgiiStatus,
      close: async () => {
        await http.close();
        await certificateParsers.close();
        await wakeups.close();
        await Promise.all([runtime.stop(config.http.shutdownGraceMs), deliveries.stop(config.http.shutdownGraceMs)]);
        await dgiiStatus.stop();
        await closeAuthority();
        if (options.database === undefined) await db.close();
        log.info('stopped');
      },
    };
  } catch (err) {
    await certificateParsers.close();
    await closeStatus();
    await dgii?.close().catch(() => {});
    if (options.database === undefined) await db.close().catch(() => {});
    throw err;
  }
}
