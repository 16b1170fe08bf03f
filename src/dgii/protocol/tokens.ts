import type { TokenAnswer } from './answers.ts';

// DGII tokens, keyed by whoever asks (the client keys them by tenant, environment and
// certificate). A token is kept until shortly before it expires,
// measured on the local clock from when it arrived (DGII's clock may differ from ours, but
// the lifetime expira − expedido is on one clock). Concurrent callers that need a token
// share one authentication instead of each spending a seed.

/** DGII documents one hour; used when the answer's instants cannot be read. */
const DEFAULT_LIFETIME_MS = 3_600_000;
const MAX_MARGIN_MS = 60_000;

interface Entry {
  token: string;
  renewAt: number;
}

/** Milliseconds the token may be used for, renewal margin already taken off. */
export function usableLifetimeMs(answer: TokenAnswer, receivedAt: number): number {
  const expira = Date.parse(answer.expira);
  const expedido = Date.parse(answer.expedido);
  let lifetime = DEFAULT_LIFETIME_MS;
  if (Number.isFinite(expira) && Number.isFinite(expedido) && expira > expedido) lifetime = expira - expedido;
  else if (Number.isFinite(expira)) lifetime = Math.max(0, expira - receivedAt);
  return lifetime - Math.min(MAX_MARGIN_MS, lifetime / 10);
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * The cached token, or one from `obtain` (shared with concurrent callers for the same key).
   * The shared authentication belongs to no caller: `signal` only lets this caller stop
   * waiting, so one job aborted (a lost lease, a shutdown) does not fail the others waiting
   * on the same token. `obtain` is bounded by the client's own timeouts.
   */
  get(key: string, obtain: () => Promise<TokenAnswer>, signal?: AbortSignal): Promise<string> {
    const entry = this.entries.get(key);
    if (entry !== undefined && this.now() < entry.renewAt) return Promise.resolve(entry.token);
    let running = this.inFlight.get(key);
    if (running === undefined) {
      running = (async () => {
        const answer = await obtain();
        const receivedAt = this.now();
        this.sweep(receivedAt);
        this.entries.set(key, { token: answer.token, renewAt: receivedAt + usableLifetimeMs(answer, receivedAt) });
        return answer.token;
      })().finally(() => this.inFlight.delete(key));
      // Every waiter may have left; the outcome must still not go unhandled.
      running.catch(() => {});
      this.inFlight.set(key, running);
    }
    return signal === undefined ? running : untilAborted(running, signal);
  }

  // Keys whose certificate was replaced are never asked for again; expired entries go when a new one arrives.
  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (now >= entry.renewAt) this.entries.delete(key);
  }

  /** Drops `token` if it is still the cached one (a concurrent caller may have renewed it). */
  discard(key: string, token: string): void {
    if (this.entries.get(key)?.token === token) this.entries.delete(key);
  }
}

/** `promise`, or the signal's reason as soon as it aborts (the promise itself runs on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
