import type { ApiKeyView, IdentityService, NewTenant } from '../../auth/identity.ts';
import type { TokenSet as ServerTokenSet } from '../../auth/tokens.ts';
import type { CertificateView } from '../../certificates/store.ts';
import type { documentDetail, DocumentSummary as ServerDocumentSummary } from '../../documents/views.ts';
import type { Statistics as ServerStatistics } from '../../documents/statistics.ts';
import type { EmailView, settingsView } from '../../documents/buyer-email.ts';
import type { logoView } from '../../documents/logo.ts';
import type { FieldError as ServerFieldError } from '../../errors.ts';
import type { sentApprovalView } from '../../receiver/buyer-approval.ts';
import type { ReceivedDocuments } from '../../receiver/received-documents.ts';
import type { ReceivedSummary as ServerReceivedSummary } from '../../receiver/views.ts';
import type { Page as ServerPage } from '../../lib/page.ts';
import type { WebhookService } from '../../webhooks/service.ts';
import type { AnnulmentView, RangeView } from '../../sequences/views.ts';
import type { CertificationService } from '../../certification/service.ts';
import type { TestSets } from '../../certification/test-sets.ts';
import type { SettingsView } from '../../webhooks/settings.ts';
import type { ReceiverSettingsView } from '../../receiver/settings.ts';
import type { CustomerView, InvoicingService, ItemView } from '../../invoicing/service.ts';
import type { attemptView, deliveryView, DeliverySubject as ServerDeliverySubject } from '../../webhooks/views.ts';

// The shapes of the API answers the page reads (the `data` of each envelope), taken from the
// server's own view types so the two cannot drift apart. Only types are imported: the page's
// scripts carry no server code. Wire<T> is what JSON.stringify makes of a server value.

type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export type FieldError = ServerFieldError;
export type PublicConfig = { registrationEnabled: boolean; sequenceExpiryWarningDays: number };
export type TokenSet = Wire<ServerTokenSet>;
export type Account = Wire<Awaited<ReturnType<IdentityService['account']>>>;
export type ApiKey = Wire<ApiKeyView>;
export type NewApiKey = ApiKey & { key: string };
export type Registration = Wire<NewTenant>;
export type Page<T> = ServerPage<T>;
export type DocumentSummary = Wire<ServerDocumentSummary>;
/** GET …/documentos-ecf/{id}: the detail, and `correo`, the e-mail to the buyer (documents/buyer-email.ts). */
export type DocumentDetail = Wire<ReturnType<typeof documentDetail>> & { correo: Wire<EmailView> | null };
export type HistoryEntry = DocumentDetail['history'][number];
export type EmailSettings = Wire<ReturnType<typeof settingsView>>;
export type Logo = Wire<ReturnType<typeof logoView>>;
export type WebhookSettings = Wire<SettingsView>;
/** What a delivery is about, from its event: null for webhook.test. */
export type DeliverySubject = ServerDeliverySubject;
export type Delivery = Wire<ReturnType<typeof deliveryView>>;
export type DeliveryStatus = Delivery['status'];
export type Attempt = Wire<ReturnType<typeof attemptView>>;
export type DeliveryDetail = Delivery & { attempts: Attempt[]; body: string };
export type TestResult = Wire<Awaited<ReturnType<WebhookService['sendTest']>>>;
export type Certificate = Wire<CertificateView>;
export type Statistics = Wire<ServerStatistics>;
export type ReceivedSummary = Wire<ServerReceivedSummary>;
/** The tenant's choices as a receiver (PUT /api/receptor/settings). */
export type ReceiverSettings = Wire<ReceiverSettingsView>;
export type ReceivedDetail = Wire<Awaited<ReturnType<ReceivedDocuments['get']>>>;
/** The tenant's commercial approval (as buyer) of a received e-CF, and each leg's sending. */
export type SentApproval = Wire<ReturnType<typeof sentApprovalView>>;
/** A DGII-authorised eNCF range and what is left of it. */
export type Range = Wire<RangeView>;
export type Annulment = Wire<AnnulmentView>;
/** Where the tenant stands in each step of DGII's certification portal. */
export type CertificationProgress = Wire<Awaited<ReturnType<CertificationService['progress']>>>;
export type CertificationStep = CertificationProgress['pasos'][number];
/** DGII's test set as imported, its cases and where each stands. */
export type CertificationSet = Wire<Awaited<ReturnType<TestSets['view']>>>;
/** The invoice form's saved customers and items, and the directory's name of an RNC. */
export type SavedCustomer = Wire<CustomerView>;
export type SavedItem = Wire<ItemView>;
export type DirectoryName = Wire<Awaited<ReturnType<InvoicingService['directoryName']>>>;
