// Built from src/dashboard/client/api.ts by `npm run build:dashboard`: edit that file, not this one.
import { loadTokens, saveTokens } from "./session.js";
export class ApiError extends Error {
    status;
    code;
    details;
    constructor(status, code, message, details = []) {
        super(message);
        this.status = status;
        this.code = code;
        this.details = details;
        this.name = 'ApiError';
    }
}
function isRecord(v) {
    return typeof v === 'object' && v !== null;
}
function errorOf(status, payload) {
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
    tokens = loadTokens();
    refreshing = null;
    config = null;
    onSessionLost = () => { };
    environment;
    constructor(environment) {
        this.environment = environment;
    }
    get signedIn() {
        return this.tokens !== null;
    }
    async signIn(email, password) {
        const set = await this.send('POST', this.customer('authentication'), { body: { email, password }, auth: false });
        this.setTokens(set);
    }
    register(input) {
        return this.send('POST', this.customer('register'), { body: input, auth: false });
    }
    publicConfig() {
        this.config ??= this.send('GET', '/dashboard/config.json', { auth: false })
            .catch(() => ({ registrationEnabled: true, sequenceExpiryWarningDays: 30 }));
        return this.config;
    }
    async signOut() {
        if (this.tokens === null)
            return;
        try {
            await this.send('POST', this.customer('logout'), { body: {}, auth: true });
        }
        catch {
        }
        finally {
            this.setTokens(null);
        }
    }
    get(path, signal) {
        return this.send('GET', path, { auth: true, ...(signal === undefined ? {} : { signal }) });
    }
    post(path, body = {}, headers) {
        return this.send('POST', path, { body, auth: true, ...(headers === undefined ? {} : { headers }) });
    }
    put(path, body) {
        return this.send('PUT', path, { body, auth: true });
    }
    patch(path, body) {
        return this.send('PATCH', path, { body, auth: true });
    }
    delete(path) {
        return this.send('DELETE', path, { auth: true });
    }
    putFile(path, data, contentType) {
        return this.send('PUT', path, { file: { data, contentType }, auth: true });
    }
    async remove(path) {
        const res = await this.authorised('DELETE', path, { auth: true });
        if (res.status !== 204)
            throw errorOf(res.status, await res.json().catch(() => null));
    }
    upload(path, data, contentType) {
        return this.send('POST', path, { file: { data, contentType }, auth: true });
    }
    async exchangeFile(path, data, contentType) {
        const res = await this.authorised('POST', path, { file: { data, contentType }, auth: true });
        if (!res.ok)
            throw errorOf(res.status, await res.json().catch(() => null));
        return res.blob();
    }
    async download(path, post) {
        const res = await this.authorised(post === undefined ? 'GET' : 'POST', path, { auth: true, ...(post === undefined ? {} : { body: post.body }) });
        if (!res.ok)
            throw errorOf(res.status, await res.json().catch(() => null));
        return res.blob();
    }
    customer(action) {
        return `/${this.environment()}/customer/${action}`;
    }
    setTokens(set) {
        this.tokens = set === null ? null : { accessToken: set.accessToken, refreshToken: set.refreshToken };
        saveTokens(this.tokens);
    }
    async send(method, path, options) {
        const res = await this.authorised(method, path, options);
        const payload = await res.json().catch(() => null);
        if (!res.ok || !isRecord(payload) || payload.success !== true)
            throw errorOf(res.status, payload);
        return payload.data;
    }
    async authorised(method, path, options) {
        const used = options.auth ? this.tokens?.accessToken : undefined;
        const res = await this.exchange(method, path, options, used);
        if (res.status !== 401 || used === undefined)
            return res;
        if (!(await this.refreshAfter(used)))
            return res;
        return this.exchange(method, path, options, this.tokens?.accessToken);
    }
    async exchange(method, path, options, bearer) {
        const headers = { ...options.headers, accept: 'application/json' };
        if (bearer !== undefined)
            headers.authorization = `Bearer ${bearer}`;
        if (options.body !== undefined)
            headers['content-type'] = 'application/json';
        if (options.file !== undefined)
            headers['content-type'] = options.file.contentType;
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
        }
        catch (err) {
            if (err instanceof DOMException && err.name === 'AbortError')
                throw err;
            throw new ApiError(0, 'NETWORK', 'Revise su conexión e intente de nuevo.');
        }
    }
    refreshAfter(stale) {
        if (this.tokens === null)
            return Promise.resolve(false);
        if (this.tokens.accessToken !== stale)
            return Promise.resolve(true);
        this.refreshing ??= this.refresh().finally(() => {
            this.refreshing = null;
        });
        return this.refreshing;
    }
    async refresh() {
        const refreshToken = this.tokens?.refreshToken;
        if (refreshToken === undefined)
            return false;
        let res;
        try {
            res = await this.exchange('POST', this.customer('refresh'), { body: { refreshToken }, auth: false }, undefined);
        }
        catch {
            return false;
        }
        const payload = await res.json().catch(() => null);
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
