import type { Environment, Estado } from './labels.ts';

// The shapes of the API answers the page reads (the `data` of each envelope).

export interface FieldError {
  path: string;
  message: string;
}

export interface PublicConfig {
  registrationEnabled: boolean;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  idToken: string;
  expiresIn: number;
}

export interface Account {
  user: { id: number; tenantId: number; email: string; name: string; createdAt: string };
  tenant: { id: number; name: string; rnc: string; createdAt: string };
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface NewApiKey extends ApiKey {
  key: string;
}

export interface Registration {
  tenant: { id: number; name: string; rnc: string };
  user: { id: number; email: string; name: string };
  apiKey: NewApiKey;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface DocumentSummary {
  internalTrackId: string;
  environment: Environment;
  tipo: number;
  encf: string;
  estado: Estado;
  rncEmisor: string;
  rncComprador: string | null;
  fechaEmision: string;
  montoTotal: string;
  trackId: string | null;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  createdAt: string;
  updatedAt: string;
  /** Present once the document is signed. */
  securityCode?: string | null;
  timbreUrl?: string | null;
  /** DGII's dd-MM-yyyy HH:mm:ss, as written in the signed XML. */
  fechaHoraFirma?: string | null;
}

export interface HistoryEntry {
  estado: Estado;
  dgiiCode: string | null;
  dgiiMessage: string | null;
  trackId: string | null;
  detail: string | null;
  at: string;
}

export interface DocumentDetail extends DocumentSummary {
  history: HistoryEntry[];
}

export interface WebhookSettings {
  webhookUrl: string | null;
  secretConfigured: boolean;
  updatedAt: string | null;
  /** Only in the answer that generated it. */
  webhookSecret?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'abandoned';

/** What a delivery is about, from its event: null for webhook.test. */
export type DeliverySubject =
  | { encf: string; estado: string; internalTrackId: string }
  | { encf: string; rncEmisor: string; razonSocialEmisor?: string };

export interface Delivery {
  id: string;
  eventId: string;
  event: string;
  subject: DeliverySubject | null;
  status: DeliveryStatus;
  url: string;
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

export interface Attempt {
  number: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string;
  ok: boolean;
}

export interface DeliveryDetail extends Delivery {
  attempts: Attempt[];
  body: string;
}

export interface TestResult {
  delivery: Delivery;
  /** Null when the first attempt could not start at once (it then runs in the background). */
  attempt: Attempt | null;
}

export interface Certificate {
  id: string;
  /** The subject's distinguished name, e.g. "CN=Empresa SRL, serialNumber=131880681". */
  subject: string;
  issuer: string;
  serialNumber: string;
  /** RNC or cédula read from the subject. */
  holderId: string | null;
  validFrom: string;
  validTo: string;
  fingerprint256: string;
  active: boolean;
  createdAt: string;
}
