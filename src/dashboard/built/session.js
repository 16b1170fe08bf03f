// Built from src/dashboard/client/session.ts by `npm run build:dashboard`: edit that file, not this one.
import { ENVIRONMENTS } from "./labels.js";
const KEYS = { tokens: 'ecf-dashboard.tokens', environment: 'ecf-dashboard.environment' };
const memory = new Map();
function read(key) {
    try {
        return sessionStorage.getItem(key);
    }
    catch {
        return memory.get(key) ?? null;
    }
}
function write(key, value) {
    try {
        if (value === null)
            sessionStorage.removeItem(key);
        else
            sessionStorage.setItem(key, value);
    }
    catch {
        if (value === null)
            memory.delete(key);
        else
            memory.set(key, value);
    }
}
export function loadTokens() {
    const raw = read(KEYS.tokens);
    if (raw === null)
        return null;
    try {
        const v = JSON.parse(raw);
        if (typeof v === 'object' && v !== null && 'accessToken' in v && 'refreshToken' in v) {
            const { accessToken, refreshToken } = v;
            if (typeof accessToken === 'string' && typeof refreshToken === 'string')
                return { accessToken, refreshToken };
        }
    }
    catch {
    }
    return null;
}
export function saveTokens(tokens) {
    write(KEYS.tokens, tokens === null ? null : JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }));
}
export function loadEnvironment() {
    const raw = read(KEYS.environment);
    return ENVIRONMENTS.find((e) => e === raw) ?? 'TesteCF';
}
export function saveEnvironment(env) {
    write(KEYS.environment, env);
}
