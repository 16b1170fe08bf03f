import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Sql } from '../db/connect.ts';
import { open, seal } from '../crypto/aead.ts';
import { validationError, type FieldError } from '../errors.ts';
import { Input } from '../lib/input.ts';
import { findSettings, upsertSettings, type SettingsRow } from './queries.ts';
import { hostReason } from '../lib/egress-guard.ts';
import { whsecProblem } from './signing.ts';
import { AppError } from '../errors.ts';

export { signatureHeader } from './signing.ts';

export interface SettingsView {
  webhookUrl: string | null;
  secretConfigured: boolean;
  updatedAt: string | null;
  /** While a rotation's overlap lasts: when the previous secret stops signing deliveries. */
  previousSecretExpiresAt: string | null;
  /** Only in the answer that generated it. */
  webhookSecret?: string;
}

const MAX_URL_LENGTH = 2048;

/** A new secret in the Standard Webhooks form: whsec_ and the base64 of 32 random bytes. */
function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function previousLive(row: Pick<SettingsRow, 'previousSecretSealed' | 'previousSecretExpiresAt'> | undefined, now: Date): boolean {
  return row?.previousSecretSealed != null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
}

function view(row: SettingsRow | undefined): SettingsView {
  const live = previousLive(row, new Date());
  return {
    webhookUrl: row?.url ?? null,
    secretConfigured: row?.secretSealed != null,
    updatedAt: row?.updatedAt.toISOString() ?? null,
    previousSecretExpiresAt: live ? row?.previousSecretExpiresAt?.toISOString() ?? null : null,
  };
}

/**
 * The tenant's webhook URL and secret. The secret is sealed with AES-256-GCM under a key
 * derived from the master key (bound to the tenant), never logged, and never shown again
 * after the answer that generated it.
 */
/** Opened secrets kept (two per tenant during a rotation); the cache starts over when full. */
const OPENED_SECRETS_MAX = 10_000;

export class WebhookSettings {
  private readonly sql: Sql;
  private readonly key: Buffer;
  private readonly config: Config['webhooks'];

  constructor(sql: Sql, key: Buffer, config: Config['webhooks']) {
    this.sql = sql;
    this.key = key;
    this.config = config;
  }

  private context(tenantId: number): string {
    return `webhook-secret:${tenantId}`;
  }

  async get(tenantId: number): Promise<SettingsView> {
    return view(await findSettings(this.sql, tenantId));
  }

  /**
   * The URL and the opened secret of stored settings, read with the delivery they serve. A
   * secret that does not open (sealed under another master key, or damaged) is an error,
   * never a reason to send the event unsigned.
   */
  forDelivery(
    tenantId: number,
    row: { url: string | null; secretSealed: Buffer | null; previousSecretSealed: Buffer | null; previousSecretExpiresAt: Date | null },
    now: Date = new Date(),
  ): { url: string | null; secrets: string[] } {
    const secrets = row.secretSealed === null ? [] : [this.openSecret(tenantId, row.secretSealed)];
    if (secrets.length > 0 && previousLive(row, now)) secrets.push(this.openSecret(tenantId, row.previousSecretSealed as Buffer));
    return { url: row.url, secrets };
  }

  /**
   * Opened secrets by tenant and sealed bytes. Keyed on the sealed value itself, an entry can
   * never be stale: a new secret is a new key. Opening one per delivery (AES-GCM) was a tenth
   * of a delivery's CPU.
   */
  private readonly opened = new Map<string, string>();

  private openSecret(tenantId: number, sealed: Buffer): string {
    const key = `${tenantId}:${sealed.toString('base64')}`;
    const cached = this.opened.get(key);
    if (cached !== undefined) return cached;
    try {
      const secret = open(this.key, sealed, this.context(tenantId)).toString('utf8');
      if (this.opened.size >= OPENED_SECRETS_MAX) this.opened.clear();
      this.opened.set(key, secret);
      return secret;
    } catch {
      throw new Error('the webhook secret cannot be decrypted (was ECF_MASTER_KEY changed?); set a new one with PUT /api/webhooks/settings');
    }
  }

  async update(tenantId: number, body: unknown): Promise<SettingsView> {
    const v = new Input(body);
    const urlGiven = v.has('webhookUrl');
    const url = v.optionalString('webhookUrl', { max: MAX_URL_LENGTH });
    const clearsUrl = (body as Record<string, unknown> | null)?.webhookUrl === null;
    const secretGiven = v.has('webhookSecret');
    const clearsSecret = (body as Record<string, unknown> | null)?.webhookSecret === null;
    const secret = v.optionalString('webhookSecret', { min: 16, max: 256, trim: false });
    const generate = v.boolean('generate', false);
    if (generate && secretGiven) v.errors.push({ path: 'generate', message: 'cannot be combined with webhookSecret' });
    const whsec = secret === undefined ? null : whsecProblem(secret);
    if (whsec !== null) v.errors.push({ path: 'webhookSecret', message: whsec });
    if (url !== undefined) v.errors.push(...(await this.checkUrl(url)));
    v.done();

    const current = await findSettings(this.sql, tenantId);
    const generated = generate ? generateSecret() : undefined;
    const newSecret = generated ?? secret;
    // Setting or clearing the secret here replaces it at once: only rotate() keeps the old one.
    const replaces = newSecret !== undefined || clearsSecret;
    const next = {
      url: urlGiven ? url ?? null : clearsUrl ? null : current?.url ?? null,
      secretSealed: newSecret !== undefined ? this.sealSecret(tenantId, newSecret)
        : clearsSecret ? null : current?.secretSealed ?? null,
      previousSecretSealed: replaces ? null : current?.previousSecretSealed ?? null,
      previousSecretExpiresAt: replaces ? null : current?.previousSecretExpiresAt ?? null,
    };
    const saved = view(await upsertSettings(this.sql, tenantId, next));
    return generated === undefined ? saved : { ...saved, webhookSecret: generated };
  }

  /**
   * Replaces the secret with a new one (given, or generated and shown in this answer only) and
   * keeps the current one signing beside it for WEBHOOK_SECRET_ROTATION_OVERLAP_HOURS, so
   * receivers can switch without refusing a delivery. 409 CONFLICT when no secret is set.
   */
  async rotate(tenantId: number, body: unknown): Promise<SettingsView> {
    const v = new Input(body ?? {});
    const secret = v.optionalString('webhookSecret', { min: 16, max: 256, trim: false });
    const whsec = secret === undefined ? null : whsecProblem(secret);
    if (whsec !== null) v.errors.push({ path: 'webhookSecret', message: whsec });
    v.done();
    const current = await findSettings(this.sql, tenantId);
    if (current?.secretSealed == null) {
      throw new AppError('CONFLICT', 'No webhook secret is set, so there is nothing to rotate; set one with PUT /api/webhooks/settings ("generate": true)');
    }
    const generated = secret === undefined ? generateSecret() : undefined;
    const saved = view(await upsertSettings(this.sql, tenantId, {
      url: current.url,
      secretSealed: this.sealSecret(tenantId, generated ?? (secret as string)),
      previousSecretSealed: current.secretSealed,
      previousSecretExpiresAt: new Date(Date.now() + this.config.secretRotationOverlapMs),
    }));
    return generated === undefined ? saved : { ...saved, webhookSecret: generated };
  }

  private sealSecret(tenantId: number, secret: string): Buffer {
    return seal(this.key, Buffer.from(secret, 'utf8'), this.context(tenantId));
  }

  private async checkUrl(url: string): Promise<FieldError[]> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return [{ path: 'webhookUrl', message: 'must be an absolute http or https URL' }];
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return [{ path: 'webhookUrl', message: 'must use http or https' }];
    if (parsed.username !== '' || parsed.password !== '') return [{ path: 'webhookUrl', message: 'must not carry credentials; use webhookSecret to authenticate deliveries' }];
    const forbidden = this.config.allowPrivateNetworks ? null : await hostReason(parsed.hostname);
    if (forbidden !== null) {
      return [{ path: 'webhookUrl', message: `is not reachable from this service: ${forbidden}; such destinations are refused while WEBHOOK_ALLOW_PRIVATE_NETWORKS is false` }];
    }
    return [];
  }
}

export function assertUrlConfigured(settings: SettingsView): void {
  if (settings.webhookUrl === null) throw validationError([{ path: 'webhookUrl', message: 'is not configured; set it with PUT /api/webhooks/settings' }]);
}
