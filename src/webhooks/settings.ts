import { createHmac, randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Sql } from '../db/connect.ts';
import { open, seal } from '../crypto/aead.ts';
import { validationError, type FieldError } from '../errors.ts';
import { Input } from '../lib/input.ts';
import { findSettings, upsertSettings, type SettingsRow } from './queries.ts';
import { hostReason } from '../lib/egress-guard.ts';

export interface SettingsView {
  webhookUrl: string | null;
  secretConfigured: boolean;
  updatedAt: string | null;
  /** Only in the answer that generated it. */
  webhookSecret?: string;
}

const MAX_URL_LENGTH = 2048;

/** X-ECF-Signature: GitHub's X-Hub-Signature-256 scheme over the exact bytes sent. */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

function view(row: SettingsRow | undefined): SettingsView {
  return { webhookUrl: row?.url ?? null, secretConfigured: row?.secretSealed != null, updatedAt: row?.updatedAt.toISOString() ?? null };
}

/**
 * The tenant's webhook URL and secret. The secret is sealed with AES-256-GCM under a key
 * derived from the master key (bound to the tenant), never logged, and never shown again
 * after the answer that generated it.
 */
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
  forDelivery(tenantId: number, row: { url: string | null; secretSealed: Buffer | null }): { url: string | null; secret: string | null } {
    return { url: row.url, secret: row.secretSealed === null ? null : this.openSecret(tenantId, row.secretSealed) };
  }

  private openSecret(tenantId: number, sealed: Buffer): string {
    try {
      return open(this.key, sealed, this.context(tenantId)).toString('utf8');
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
    if (url !== undefined) v.errors.push(...(await this.checkUrl(url)));
    v.done();

    const current = await findSettings(this.sql, tenantId);
    const generated = generate ? `whsec_${randomBytes(32).toString('base64url')}` : undefined;
    const newSecret = generated ?? secret;
    const next = {
      url: urlGiven ? url ?? null : clearsUrl ? null : current?.url ?? null,
      secretSealed: newSecret !== undefined ? seal(this.key, Buffer.from(newSecret, 'utf8'), this.context(tenantId))
        : clearsSecret ? null : current?.secretSealed ?? null,
    };
    const saved = view(await upsertSettings(this.sql, tenantId, next));
    return generated === undefined ? saved : { ...saved, webhookSecret: generated };
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
