import { ENVIRONMENTS, type Environment } from './labels.ts';

// What survives a reload of this tab: the tokens and the chosen environment, in
// sessionStorage (gone when the tab closes, never shared with other tabs). Where storage is
// unavailable the values live in memory only.

const KEYS = { tokens: 'ecf-dashboard.tokens', environment: 'ecf-dashboard.environment' } as const;
const memory = new Map<string, string>();

function read(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return memory.get(key) ?? null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    if (value === null) memory.delete(key);
    else memory.set(key, value);
  }
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

export function loadTokens(): Tokens | null {
  const raw = read(KEYS.tokens);
  if (raw === null) return null;
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'object' && v !== null && 'accessToken' in v && 'refreshToken' in v) {
      const { accessToken, refreshToken } = v;
      if (typeof accessToken === 'string' && typeof refreshToken === 'string') return { accessToken, refreshToken };
    }
  } catch {
    // unreadable: treated as signed out
  }
  return null;
}

export function saveTokens(tokens: Tokens | null): void {
  write(KEYS.tokens, tokens === null ? null : JSON.stringify({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }));
}

export function loadEnvironment(): Environment {
  const raw = read(KEYS.environment);
  return ENVIRONMENTS.find((e) => e === raw) ?? 'TesteCF';
}

export function saveEnvironment(env: Environment): void {
  write(KEYS.environment, env);
}
