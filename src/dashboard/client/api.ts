import { loadTokens, saveTokens, type Tokens } from './session.ts';
import type { Environment } from './labels.ts';
import type { FieldError, PublicConfig, Registration, TokenSet } from './types.ts';

// The page's only way to the service: the public API with a bearer token. An answer of 401
// is refreshed once and retried. Refresh tokens are single-use and presenting one twice
// revokes the session, so every request that meets a 401 shares the same refresh.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: readonly FieldError[];

  constructor(status: number, code: string, message: string, details: readonly FieldError[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.name = 'ApiError';
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface SendOptions {
  body?: unknown;
  /** A file sent as it is (the logo, a workbook, an XML to sign) instead of a JSON body. */
  file?: { data: Blob; contentType: string };
  signal?: AbortSignal;
  /** Send the bearer token (and refresh on 401). */
  auth: boolean;
  /** Extra request headers (an Idempotency-Key). */
  headers?: Readonly<Record<string, string>>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function errorOf(status: number, payload: unknown): ApiError {
  const error = isRecord(payload) && isRecord(payload.error) ? payload.error : null;
  if (error !== null && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = Array.isArray(error.details)
      ? error.details.filter(isRecord).map((d) => ({ path: String(d.path ?? ''), message: String(d.message ?? '') }))
      : [];
    return new ApiError(status, error.code, error.message, details);
  }
  return new ApiError(status, `HTTP_${status}`, `El servicio respondió ${status}.`);
}

export class Api {
  private tokens: Tokens | null = loadTokens();
  private refreshing: Promise<boolean> | null = null;
  private config: Promise<PublicConfig> | null = null;
  /** Called once the session is gone for good (the refresh was refused). */
  onSessionLost: () => void = () => {};
  private readonly environment: () => Environment;

  constructor(environment: () => Environment) {
    this.environment = environment;
  }

  get signedIn(): boolean {
    return this.tokens !== null;
  }

  async signIn(email: string, password: string): Promise<void> {
    const set = await this.send<TokenSet>('POST', this.customer('authentication'), { body: { email, password }, auth: false });
    this.setTokens(set);
  }

  register(input: { name: string; rnc: string; email: string; password: string }): Promise<Registration> {
    return this.send<Registration>('POST', this.customer('register'), { body: input, auth: false });
  }

  /**
   * What the server allows before sign-in, asked once. When it cannot be read the page
   * offers registration anyway: the server still refuses it in words where it is closed.
   */
  publicConfig(): Promise<PublicConfig> {
    this.config ??= this.send<PublicConfig>('GET', '/dashboard/config.json', { auth: false })
      .catch((): PublicConfig => ({ registrationEnabled: true, sequenceExpiryWarningDays: 30 }));
    return this.config;
  }

  /** Revokes the session on the server, then forgets the tokens whatever the answer. */
  async signOut(): Promise<void> {
    if (this.tokens === null) return;
    try {
      await this.send<unknown>('POST', this.customer('logout'), { body: {}, auth: true });
    } catch {
      // An already revoked session, or no network: the tokens are dropped below either way.
    } finally {
      this.setTokens(null);
    }
  }

  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.send<T>('GET', path, { auth: true, ...(signal === undefined ? {} : { signal }) });
  }

  post<T>(path: string, body: unknown = {}, headers?: Readonly<Record<string, string>>): Promise<T> {
    return this.send<T>('POST', path, { body, auth: true, ...(headers === undefined ? {} : { headers }) });
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('PUT', path, { body, auth: true });
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('PATCH', path, { body, auth: true });
  }

  delete<T>(path: string): Promise<T> {
    return this.send<T>('DELETE', path, { auth: true });
  }

  /** PUT of a file as the body, with its own Content-Type (the logo). */
  putFile<T>(path: string, data: Blob, contentType: string): Promise<T> {
    return this.send<T>('PUT', path, { file: { data, contentType }, auth: true });
  }

  /** A DELETE answered 204 with no body. */
  async remove(path: string): Promise<void> {
    const res = await this.authorised('DELETE', path, { auth: true });
    if (res.status !== 204) throw errorOf(res.status, await res.json().catch(() => null));
  }

  /** A file sent as it is, answered in JSON (a test set's import). */
  upload<T>(path: string, data: Blob, contentType: string): Promise<T> {
    return this.send<T>('POST', path, { file: { data, contentType }, auth: true });
  }

  /** A file sent as it is and answered by a file (a portal document and its signed copy). */
  async exchangeFile(path: string, data: Blob, contentType: string): Promise<Blob> {
    const res = await this.authorised('POST', path, { file: { data, contentType }, auth: true });
    if (!res.ok) throw errorOf(res.status, await res.json().catch(() => null));
    return res.blob();
  }

  /** A non-JSON resource (the signed XML), with the same credentials and refresh. */
  async download(path: string, post?: { body: unknown }): Promise<Blob> {
    const res = await this.authorised(post === undefined ? 'GET' : 'POST', path, { auth: true, ...(post === undefined ? {} : { body: post.body }) });
    if (!res.ok) throw errorOf(res.status, await res.json().catch(() => null));
    return res.blob();
  }

  private customer(action: string): string {
    return `/${this.environment()}/customer/${action}`;
  }

  private setTokens(set: Tokens | null): void {
    this.tokens = set === null ? null : { accessToken: set.accessToken, refreshToken: set.refreshToken };
    saveTokens(this.tokens);
  }

  private async send<T>(method: Method, path: string, options: SendOptions): Promise<T> {
    const res = await this.authorised(method, path, options);
    const payload: unknown = await res.json().catch(() => null);
    if (!res.ok || !isRecord(payload) || payload.success !== true) throw errorOf(res.status, payload);
    return payload.data as T;
  }

  private async authorised(method: Method, path: string, options: SendOptions): Promise<Response> {
    const used = options.auth ? this.tokens?.accessToken : undefined;
    const res = await this.exchange(method, path, options, used);
    if (res.status !== 401 || used === undefined) return res;
    if (!(await this.refreshAfter(used))) return res;
    return this.exchange(method, path, options, this.tokens?.accessToken);
  }

  private async exchange(method: Method, path: string, options: SendOptions, bearer: string | undefined): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.file !== undefined) headers['content-type'] = options.file.contentType;
    try {
      return await fetch(path, {
        method,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.file === undefined ? {} : { body: options.file.data }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, 'NETWORK', 'Revise su conexión e intente de nuevo.');
    }
  }

  /** Resolves true when a token newer than `stale` is available: one refresh for all callers. */
  private refreshAfter(stale: string): Promise<boolean> {
    if (this.tokens === null) return Promise.resolve(false);
    if (this.tokens.accessToken !== stale) return Promise.resolve(true);
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refresh(): Promise<boolean> {
    const refreshToken = this.tokens?.refreshToken;
    if (refreshToken === undefined) return false;
    let res: Response;
    try {
      res = await this.exchange('POST', this.customer('refresh'), { body: { refreshToken }, auth: false }, undefined);
    } catch {
      return false;
    }
    const payload: unknown = await res.json().catch(() => null);
    if (res.ok && isRecord(payload) && isRecord(payload.data) && typeof payload.data.accessToken === 'string' && typeof payload.data.refreshToken === 'string') {
      this.setTokens({ accessToken: payload.data.accessToken, refreshToken: payload.data.refreshToken });
      return true;
    }
    if (res.status === 401 || res.status === 403) {
      this.setTokens(null);
      this.onSessionLost();
    }
    return false;
  }
}
