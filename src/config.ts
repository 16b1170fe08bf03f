import type { X509Certificate } from 'node:crypto';
import { resolve } from 'node:path';
import { ConfigError, Reader, type Env, type VariableDoc } from './lib/env-reader.ts';
import { isMailAddress, parseSmtpUrl, SmtpUrlError, type SmtpTarget } from './lib/smtp/index.ts';
import { LOG_LEVELS, type LogLevel } from './log.ts';
import { DGII_BASE_URLS, DGII_FC_BASE_URLS, type Environment } from './environments.ts';
import { parseDatabaseUrl, parseDgiiUrls, parseMasterKey, parsePublicUrl, parseStatusUrl, readTrustedCas } from './config/parsers.ts';

// Configuration is read once, here, from environment variables into a typed object.
// Every variable is declared through the reader below, which records its default and
// description (docs/configuration.md's table is generated from VARIABLES and checked by a test)
// and collects every invalid value so that start-up reports all of them at once.


export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** simulator: DGII's HTTP services simulated in process; dgii: DGII's real services. */
export const AUTHORITY_KINDS = ['simulator', 'dgii'] as const;
export type AuthorityKind = (typeof AUTHORITY_KINDS)[number];

export interface Config {
  nodeEnv: NodeEnv;
  host: string;
  port: number;
  /** Public address of the service, used in links and in the OpenAPI document. */
  publicUrl: string | null;
  /** `null` → embedded PGlite under dataDir; `memory://` → embedded, in memory. */
  databaseUrl: string | null;
  dbPoolMax: number;
  /** HTTP worker processes (node:cluster) sharing the port; 1 runs in this process alone. */
  webConcurrency: number;
  dataDir: string;
  /** Raw master secret; null means "generate one under dataDir" (development only). */
  masterKey: Buffer | null;
  logLevel: LogLevel;
  trustProxy: number;
  registrationEnabled: boolean;
  /** Bearer token for GET /metrics; null means loopback clients only. */
  metricsToken: string | null;
  http: {
    bodyLimitBytes: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxHeaderSize: number;
    shutdownGraceMs: number;
    deadlineMs: number;
  };
  auth: {
    issuer: string;
    accessTokenTtlSec: number;
    refreshTokenTtlSec: number;
    credentialCacheMs: number;
    scryptLogN: number;
    scryptMaxConcurrent: number;
    scryptMaxQueue: number;
    scryptUnknownEmailsPerMinute: number;
  };
  queue: {
    workersEnabled: boolean;
    pollIntervalMs: number;
    batchSize: number;
    concurrency: number;
    leaseMs: number;
    /** Period of the repair that gives work in flight its lost job back. */
    repairIntervalMs: number;
  };
  idempotency: {
    ttlMs: number;
    leaseMs: number;
  };
  sequences: {
    /** sequence.low when a type's numbers left across its active ranges fall to this. */
    lowWatermark: number;
    /** sequence.expiring this many days before an active range's expiry. */
    expiryWarningDays: number;
  };
  authority: {
    kind: AuthorityKind;
    simulatedProcessingMs: number;
    /** Deadline of each HTTP exchange with DGII. */
    timeoutMs: number;
    /** DGII's e-CF services per environment (TAX_AUTHORITY=dgii). */
    baseUrls: Record<Environment, string>;
    /** DGII's RFCE (type 32 summary) services per environment. */
    fcBaseUrls: Record<Environment, string>;
    pollIntervalMs: number;
    pollMaxIntervalMs: number;
    pollTimeoutMs: number;
    /** How long DGII may answer "No encontrado" for a trackId before the document is error. */
    notFoundTimeoutMs: number;
    submitMaxAttempts: number;
    retryBaseMs: number;
    retryMaxMs: number;
    /** DGII's "Estatus Servicios" host (TAX_AUTHORITY=dgii; the simulator serves its own). */
    statusUrl: string;
    /** DGII's API key for it (`Authorization: Apikey …`); a secret, never logged. */
    statusApiKey: string | null;
    /** How often each instance reads DGII's service status and maintenance windows. */
    statusRefreshMs: number;
    /** Work paused by a maintenance window is tried again this long after the window ends. */
    maintenanceMarginMs: number;
  };
  /** The e-CF e-mailed to its buyer (src/documents/buyer-email.ts); off while smtp is null. */
  mail: {
    smtp: SmtpTarget | null;
    from: string | null;
    timeoutMs: number;
    maxAttempts: number;
    retryBaseMs: number;
    retryMaxMs: number;
  };
  webhooks: {
    retryDelaysMs: number[];
    timeoutMs: number;
    pollIntervalMs: number;
    concurrency: number;
    maxInFlightPerTenant: number;
    allowPrivateNetworks: boolean;
    /** How long a rotated-out webhook secret keeps signing beside the new one. */
    secretRotationOverlapMs: number;
  };
  /** The buyer leg: delivering e-CF to buyers' receivers and sending commercial approvals. */
  exchange: {
    directoryCacheTtlMs: number;
    timeoutMs: number;
    maxAttempts: number;
    retryBaseMs: number;
    retryMaxMs: number;
    allowPrivateNetworks: boolean;
  };
  rateLimits: {
    defaultPerMinute: number;
    emitPerMinute: number;
    sensitivePerMinute: number;
    publicAuthPerMinute: number;
    receiverPerMinute: number;
    receiverPerIpPerMinute: number;
    receiverAnonymousPerMinute: number;
    signInPerAccountPerMinute: number;
    ipv6WidenAfter: number;
    maxKeys: number;
  };
  receiver: {
    /** RECEIVER_TRUSTED_CA_FILE, resolved; null when unset. */
    trustedCaFile: string | null;
    /** The CA certificates of that file, read and checked at start; null when unset. */
    trustedCas: readonly X509Certificate[] | null;
    crlTimeoutMs: number;
    crlMaxBytes: number;
    crlAllowPrivateNetworks: boolean;
  };
}

function readReceiver(r: Reader): Config['receiver'] {
  const file = r.optional('RECEIVER_TRUSTED_CA_FILE', 'PEM bundle of the certification authorities (DGII\'s authorised providers) whose certificates may sign what the receiver accepts (seeds, e-CF, ACECF); read at start. Unset: eCF refuses every sender, TesteCF and CerteCF accept any and mark it untrusted.');
  const trustedCaFile = file === null ? null : resolve(file);
  return {
    trustedCaFile,
    trustedCas: readTrustedCas(r, trustedCaFile),
    crlTimeoutMs: r.int('RECEIVER_CRL_TIMEOUT_MS', 5000, 100, 120_000, 'Deadline of each CRL download named by a sender\'s certificate chain.'),
    crlMaxBytes: r.int('RECEIVER_CRL_MAX_BYTES', 20 * 1024 * 1024, 1024, 512 * 1024 * 1024, 'Largest CRL downloaded; a larger one counts as unavailable.'),
    crlAllowPrivateNetworks: r.bool('RECEIVER_CRL_ALLOW_PRIVATE_NETWORKS', false, 'Allow CRL URLs that resolve to loopback, private, link-local or reserved addresses (tests and closed networks only).'),
  };
}

function readMail(r: Reader): Config['mail'] {
  const url = r.optional('SMTP_URL', 'SMTP relay for e-mailing accepted e-CF to their buyers: smtps://user:pass@host:465 (TLS) or smtp://host:587 (STARTTLS; user:pass@ optional, percent-encoded). Unset: no e-mail is sent.');
  const requireTls = r.bool('SMTP_REQUIRE_TLS', true, 'On smtp://, a relay not on the loopback interface must offer STARTTLS or nothing is sent; false allows a plain relay (a password is still never sent in clear).');
  const from = r.optional('MAIL_FROM', 'Envelope sender and From address of the e-mails to buyers (an address the relay may send as); required with SMTP_URL. The tenant\'s name is its display name, its reply-to address Reply-To.');
  let smtp: SmtpTarget | null = null;
  if (url !== null) {
    try {
      smtp = parseSmtpUrl(url, requireTls);
    } catch (e) {
      r.problem(e instanceof SmtpUrlError ? e.message : 'SMTP_URL is not a valid URL');
    }
    if (from === null) r.problem('MAIL_FROM is required when SMTP_URL is set');
  }
  if (from !== null && !isMailAddress(from)) r.problem(`MAIL_FROM must be a plain mail address such as facturas@example.com (got "${from}")`);
  return {
    smtp,
    from,
    timeoutMs: r.int('SMTP_TIMEOUT_MS', 60_000, 1000, 600_000, 'Deadline of one e-mail\'s whole SMTP exchange with the relay.'),
    maxAttempts: r.int('MAIL_MAX_ATTEMPTS', 8, 1, 100, 'Tries to hand an e-mail to the relay (network errors, timeouts, 4xx) before it is recorded as error; a 5xx refusal is final at once.'),
    retryBaseMs: r.int('MAIL_RETRY_BASE_MS', 60_000, 1, 3_600_000, 'First wait after a failed e-mail; doubles each time.'),
    retryMaxMs: r.int('MAIL_RETRY_MAX_MS', 3_600_000, 1, 24 * 3_600_000, 'Longest wait between two failed e-mails.'),
  };
}

function read(env: Env): { config: Config; r: Reader } {
  const r = new Reader(env);
  const nodeEnv = r.oneOf('NODE_ENV', NODE_ENVS, 'development', 'Deployment mode; production requires ECF_MASTER_KEY and an explicit TAX_AUTHORITY.');
  const config: Config = {
    nodeEnv,
    host: r.string('HOST', '127.0.0.1', 'Address the HTTP server binds to (0.0.0.0 for all interfaces).'),
    port: r.int('PORT', 8080, 0, 65535, 'HTTP port (0 picks a free port).'),
    publicUrl: parsePublicUrl(r, r.optional('PUBLIC_URL', 'Public base URL of the service (used in the OpenAPI servers list).')),
    databaseUrl: parseDatabaseUrl(r, r.optional('DATABASE_URL', 'PostgreSQL URL. Unset: embedded PostgreSQL (PGlite) under DATA_DIR; memory:// keeps it in memory.')),
    dbPoolMax: r.int('DB_POOL_MAX', 10, 1, 200, 'Maximum PostgreSQL connections of this instance: half of them (at least 1) run transactions, one each, the rest (at least 1) single statements, so 1 means 2. The embedded database has one backend.'),
    webConcurrency: r.int('WEB_CONCURRENCY', 1, 1, 256, 'Worker processes (node:cluster) sharing the HTTP port, each also running background jobs; SIGTERM drains them all. Above 1 needs DATABASE_URL (the embedded database serves one process).'),
    dataDir: resolve(r.string('DATA_DIR', './data', 'Directory for the embedded database and the development master key.')),
    masterKey: null,
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info', 'Minimum level of the JSON log lines written to stdout.'),
    trustProxy: r.int('TRUST_PROXY', 0, 0, 10, 'Number of reverse-proxy hops whose X-Forwarded-For is trusted for the client IP (0: use the socket address).'),
    // Closed by default in production: an operator opens public sign-up on purpose.
    registrationEnabled: r.bool('REGISTRATION_ENABLED', nodeEnv !== 'production', 'Allow public sign-up through POST /{env}/customer/register.', 'true; false when NODE_ENV=production'),
    metricsToken: r.optional('METRICS_TOKEN', 'Bearer token that GET /metrics requires; unset: /metrics answers loopback clients only.'),
    http: {
      bodyLimitBytes: r.int('HTTP_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024, 'Largest accepted request body (413 above it).'),
      headersTimeoutMs: r.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 1000, 600_000, 'Time allowed to receive the request headers.'),
      requestTimeoutMs: r.int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000, 'Time allowed to receive a whole request.'),
      keepAliveTimeoutMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000, 'Idle time before a keep-alive connection is closed.'),
      maxHeaderSize: r.int('HTTP_MAX_HEADER_SIZE', 16 * 1024, 1024, 1024 * 1024, 'Largest accepted request header block, in bytes.'),
      shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 15_000, 0, 600_000, 'On SIGTERM, time allowed for in-flight work before connections are cut.'),
      deadlineMs: r.int('HTTP_DEADLINE_MS', 10_000, 1000, 600_000, 'Time a request\'s authentication and handler may take once its body has arrived; past it the answer is 503 with Retry-After (a database that stopped answering). Routes that wait on another service (certificate parsing, a sender\'s CRLs, a test webhook) add that service\'s own timeout.'),
    },
    auth: {
      issuer: r.string('JWT_ISSUER', 'ecf-service', 'The iss claim of issued tokens.'),
      accessTokenTtlSec: r.int('ACCESS_TOKEN_TTL_SECONDS', 3600, 30, 86_400, 'Lifetime of access and id tokens.'),
      refreshTokenTtlSec: r.int('REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 60, 365 * 86_400, 'Lifetime of a refresh token (each use rotates it).'),
      credentialCacheMs: r.int('CREDENTIAL_CACHE_MS', 10_000, 0, 300_000, 'How long an instance trusts its cached view of an API key or session (revocations on other instances take up to this long).'),
      scryptLogN: r.int('SCRYPT_LOG_N', 17, 10, 20, 'scrypt cost as log2(N) for new password hashes (17 = OWASP\'s N=2^17, r=8, p=1).'),
      scryptMaxConcurrent: r.int('SCRYPT_MAX_CONCURRENT', 2, 1, 64, 'Password hashes computed at once (each uses 128·N·r bytes of memory).'),
      scryptMaxQueue: r.int('SCRYPT_MAX_QUEUE', 100, 0, 100_000, 'Password hashes allowed to wait; beyond it requests get 503.'),
      scryptUnknownEmailsPerMinute: r.int('SCRYPT_UNKNOWN_EMAILS_PER_MINUTE', 30, 1, 100_000, 'Password hashes spent per minute (this instance) on sign-ins with an email no user has, one at a time and apart from the known accounts\' hashes; the others are answered after a delay drawn from measured hash times, without hashing.'),
    },
    queue: {
      workersEnabled: r.bool('WORKERS_ENABLED', true, 'Run background jobs (submission, status polling, webhook deliveries) in this instance.'),
      pollIntervalMs: r.int('QUEUE_POLL_INTERVAL_MS', 1000, 5, 60_000, 'How often an idle worker looks for due jobs (a full batch polls again at once). Jobs this instance schedules for later are claimed when due; the poll finds those of other instances.'),
      batchSize: r.int('QUEUE_BATCH_SIZE', 20, 1, 1000, 'Jobs claimed per poll.'),
      concurrency: r.int('QUEUE_CONCURRENCY', 50, 1, 10_000, 'Jobs running at once in this instance.'),
      leaseMs: r.int('QUEUE_LEASE_MS', 120_000, 1000, 3_600_000, 'How long a claimed job stays reserved; a crashed worker\'s jobs run again after it.'),
      repairIntervalMs: r.int('JOB_REPAIR_INTERVAL_MS', 60_000, 100, 86_400_000, 'How often one instance looks for pending webhook deliveries and documents in flight that have no job, and gives them one (counted in ecf_repaired_jobs_total).'),
    },
    idempotency: {
      ttlMs: r.int('IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 30, 'How long Idempotency-Key responses are kept for replay.') * 3_600_000,
      leaseMs: r.int('IDEMPOTENCY_LEASE_SECONDS', 60, 1, 3600, 'How long a running request holds its Idempotency-Key before a retry may take it over.') * 1000,
    },
    sequences: {
      lowWatermark: r.int('SEQUENCE_LOW_WATERMARK', 100, 0, 1_000_000_000, 'sequence.low is sent once when the numbers left across a type\'s active eNCF ranges fall to this (again only after registering more lifts them above it).'),
      expiryWarningDays: r.int('SEQUENCE_EXPIRY_WARNING_DAYS', 30, 1, 3650, 'sequence.expiring is sent once per active eNCF range this many days before its FechaVencimientoSecuencia.'),
    },
    authority: {
      kind: r.oneOf('TAX_AUTHORITY', AUTHORITY_KINDS, 'simulator', 'Where documents are sent (must be set explicitly when NODE_ENV=production): simulator starts a DGII simulator inside the service (on 127.0.0.1, a free port) and talks to it with the real DGII client; dgii uses DGII\'s services.'),
      simulatedProcessingMs: r.int('SIMULATOR_PROCESSING_MS', 3000, 0, 3_600_000, 'With TAX_AUTHORITY=simulator: how long the simulator answers "En Proceso" before its verdict.'),
      timeoutMs: r.int('DGII_TIMEOUT_MS', 30_000, 100, 600_000, 'Deadline of each HTTP call to DGII (or the simulator), reading the answer included; a timeout is retried like a network error.'),
      baseUrls: parseDgiiUrls(r, nodeEnv, 'DGII_BASE_URL', DGII_BASE_URLS, 'Base URL of DGII\'s e-CF services (authentication, reception, status)'),
      fcBaseUrls: parseDgiiUrls(r, nodeEnv, 'DGII_FC_BASE_URL', DGII_FC_BASE_URLS, 'Base URL of DGII\'s RFCE service (type 32 under RD$250,000)'),
      pollIntervalMs: r.int('DGII_POLL_INTERVAL_MS', 2000, 10, 3_600_000, 'First wait before asking the authority for a document\'s status; doubles each time.'),
      pollMaxIntervalMs: r.int('DGII_POLL_MAX_INTERVAL_MS', 60_000, 10, 3_600_000, 'Longest wait between two status queries.'),
      pollTimeoutMs: r.int('DGII_POLL_TIMEOUT_MS', 24 * 3_600_000, 1000, 30 * 24 * 3_600_000, 'After this long without a final status a document becomes error.'),
      notFoundTimeoutMs: r.int('DGII_NOT_FOUND_TIMEOUT_MS', 600_000, 0, 30 * 24 * 3_600_000, 'How long DGII may answer "No encontrado" (codigo 0) for a trackId it gave before the document becomes error with DGII\'s message; an "En Proceso" answer in between starts the count again.'),
      submitMaxAttempts: r.int('DGII_SUBMIT_MAX_ATTEMPTS', 8, 1, 100, 'Tries to send a document (network errors, timeouts, 5xx, 408, 425, 429) before it becomes error.'),
      retryBaseMs: r.int('DGII_RETRY_BASE_MS', 2000, 1, 3_600_000, 'First wait after a failed call to the authority; doubles each time.'),
      retryMaxMs: r.int('DGII_RETRY_MAX_MS', 300_000, 1, 24 * 3_600_000, 'Longest wait between two failed calls to the authority.'),
      statusUrl: parseStatusUrl(r, nodeEnv),
      statusApiKey: r.optional('DGII_STATUS_API_KEY', 'The API key DGII hands out for "Estatus Servicios" (sent as Authorization: Apikey …; never logged). Unset: the per-service statuses (obtenerestatus) are not asked; the maintenance windows and each environment\'s estado still are.'),
      statusRefreshMs: r.int('DGII_STATUS_REFRESH_MS', 300_000, 1000, 86_400_000, 'How often each instance reads DGII\'s service status and published maintenance windows (and once at start); kept in memory per instance.'),
      maintenanceMarginMs: r.int('DGII_MAINTENANCE_MARGIN_MS', 60_000, 0, 3_600_000, 'Submissions paused by a published DGII maintenance window are tried again this long after the window ends.'),
    },
    mail: readMail(r),
    webhooks: {
      retryDelaysMs: r.intList('WEBHOOK_RETRY_DELAYS_MS', [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000], 0, 7 * 86_400_000, 'Waits before each retry of a failed delivery (1 min, 5 min, 30 min, 2 h, 12 h); when the last retry fails the delivery is abandoned.'),
      timeoutMs: r.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000, 'A receiver that has not answered within this time has failed the attempt.'),
      pollIntervalMs: r.int('WEBHOOK_POLL_INTERVAL_MS', 1000, 5, 60_000, 'How often idle delivery workers look for due deliveries. The deliveries a state change on this instance queues are claimed at once, and the retries it schedules when due; the poll finds those of other instances.'),
      concurrency: r.int('WEBHOOK_CONCURRENCY', 100, 1, 10_000, 'Deliveries in flight at once in this instance.'),
      maxInFlightPerTenant: r.int('WEBHOOK_MAX_IN_FLIGHT_PER_TENANT', 10, 1, 10_000, 'Deliveries in flight at once to one tenant, so a slow receiver cannot take every slot (one answering within 250 ms may have half of WEBHOOK_CONCURRENCY).'),
      allowPrivateNetworks: r.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false, 'Allow webhook URLs that resolve to loopback, private, link-local or reserved addresses (development and tests only; under NODE_ENV=production the service warns at start).'),
      secretRotationOverlapMs: r.int('WEBHOOK_SECRET_ROTATION_OVERLAP_HOURS', 24, 0, 24 * 30, 'After POST /api/webhooks/settings/rotate-secret, deliveries stay signed with the previous secret too for this long, so receivers can switch without refusing one.') * 3_600_000,
    },
    exchange: {
      directoryCacheTtlMs: r.int('DIRECTORY_CACHE_TTL_MS', 3_600_000, 0, 7 * 86_400_000, 'How long an answer of DGII\'s directory of electronic receivers (a buyer\'s URLs, or its absence) is reused; 0 asks every time.'),
      timeoutMs: r.int('EXCHANGE_TIMEOUT_MS', 30_000, 100, 600_000, 'Deadline of each HTTP call to a buyer\'s or emisor\'s receiver (seed, token, e-CF, ACECF), reading the answer included.'),
      maxAttempts: r.int('EXCHANGE_MAX_ATTEMPTS', 8, 1, 100, 'Tries to deliver an e-CF to the buyer, or an ACECF to the emisor or DGII (network errors, timeouts, 5xx), before it is recorded as error.'),
      retryBaseMs: r.int('EXCHANGE_RETRY_BASE_MS', 5000, 1, 3_600_000, 'First wait after a failed delivery to a receiver; doubles each time.'),
      retryMaxMs: r.int('EXCHANGE_RETRY_MAX_MS', 600_000, 1, 24 * 3_600_000, 'Longest wait between two failed deliveries to a receiver.'),
      allowPrivateNetworks: r.bool('EXCHANGE_ALLOW_PRIVATE_NETWORKS', false, 'Allow receiver URLs from the directory that resolve to loopback, private, link-local or reserved addresses (development, tests, and the in-process simulator\'s directory of this service\'s own tenants).'),
    },
    rateLimits: {
      defaultPerMinute: r.int('RATE_LIMIT_DEFAULT_PER_MINUTE', 120, 1, 1_000_000, 'Default API scope, per tenant.'),
      emitPerMinute: r.int('RATE_LIMIT_EMIT_PER_MINUTE', 600, 1, 1_000_000, 'POST documentos-ecf, per tenant: a burst of this many, then this many per minute; a batch (POST documentos-ecf/lote) counts as its documents.'),
      sensitivePerMinute: r.int('RATE_LIMIT_SENSITIVE_PER_MINUTE', 10, 1, 1_000_000, 'Certificate upload, password change, webhook test; per tenant.'),
      publicAuthPerMinute: r.int('RATE_LIMIT_PUBLIC_AUTH_PER_MINUTE', 20, 1, 1_000_000, 'Login, register, refresh; per client IP.'),
      receiverPerMinute: r.int('RATE_LIMIT_RECEIVER_PER_MINUTE', 600, 1, 1_000_000, 'Receiver group /fe/*, per tenant: e-CF and approvals sent with a valid sender token (taken once the token is checked, so requests without one never spend it).'),
      receiverAnonymousPerMinute: r.int('RATE_LIMIT_RECEIVER_ANONYMOUS_PER_MINUTE', 300, 1, 1_000_000, 'Receiver group /fe/*, per tenant: requests no valid token vouches for (seeds, certificate validations, uploads with a missing or refused token), a budget apart from the senders\' one.'),
      receiverPerIpPerMinute: r.int('RATE_LIMIT_RECEIVER_PER_IP_PER_MINUTE', 120, 1, 1_000_000, 'Receiver group /fe/*, per client IP, taken before the tenant\'s bucket (unknown RNCs included); a request with a valid sender token gets it back, so seeds, certificate validations and refused tokens are what counts.'),
      signInPerAccountPerMinute: r.int('RATE_LIMIT_SIGNIN_PER_ACCOUNT_PER_MINUTE', 10, 1, 1_000_000, 'Sign-ins per account (the email, lower-cased and trimmed, whatever the IP, known or not); a successful sign-in does not count.'),
      ipv6WidenAfter: r.int('RATE_LIMIT_IPV6_WIDEN_AFTER', 4, 1, 65_536, 'Per-IP limits key IPv6 clients by /64; once this many /64s of one /48 are refused within a minute, or four times as many ask at all, the whole /48 shares one bucket (until it goes 10 minutes without a refusal).'),
      maxKeys: r.int('RATE_LIMIT_MAX_KEYS', 100_000, 100, 10_000_000, 'Most buckets each rate-limit scope keeps in memory per instance; on reaching it the least recently used half is dropped.'),
    },
    receiver: readReceiver(r),
  };
  if (config.webConcurrency > 1 && (config.databaseUrl === null || config.databaseUrl === 'memory://')) {
    r.problem(`WEB_CONCURRENCY=${config.webConcurrency} needs DATABASE_URL: the embedded database (PGlite) serves one process only; set DATABASE_URL to a PostgreSQL server or WEB_CONCURRENCY=1`);
  }
  // Production never falls back to the simulator by default: an operator who forgot the
  // setting would otherwise issue nothing to DGII while every document looked accepted.
  if (nodeEnv === 'production' && (env.TAX_AUTHORITY ?? '').trim() === '') {
    r.problem('TAX_AUTHORITY must be set when NODE_ENV=production: dgii sends documents to DGII; simulator keeps the built-in simulator on purpose');
  }
  config.masterKey = parseMasterKey(r, r.optional('ECF_MASTER_KEY', 'Master secret (≥32 bytes, hex or base64) from which signing and encryption keys are derived. Required in production; in development one is generated under DATA_DIR.'), nodeEnv);
  return { config, r };
}

/** Builds the configuration from an environment map; throws ConfigError listing every bad value. */
export function loadConfig(env: Env): Config {
  const { config, r } = read(env);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** The configuration of this process. The only place that reads process.env. */
export function loadConfigFromProcess(): Config {
  return loadConfig(process.env);
}

/** Every variable the service reads, with its default and meaning (for docs/configuration.md and tests). */
export const VARIABLES: readonly VariableDoc[] = read({}).r.docs;

export { ConfigError, type VariableDoc };
