// One HTTP request with a deadline, whose outcome is recorded rather than thrown: the
// load loops of the fault tests classify every answer (status and error code) or failure
// (timeout, connection error) by when it happened.

export interface Outcome {
  label: string;
  startedAt: number;
  endedAt: number;
  /** 0 when there was no HTTP answer. */
  status: number;
  /** error.code of an error envelope. */
  code: string | null;
  /** 'timeout' or the connection error, when there was no answer. */
  failure: string | null;
  body: unknown;
}

export interface TimedRequest {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
}

export async function timedRequest(baseUrl: string, r: TimedRequest, timeoutMs: number): Promise<Outcome> {
  const startedAt = Date.now();
  const headers: Record<string, string> = { ...r.headers };
  if (r.json !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(baseUrl + r.path, {
      method: r.method,
      headers,
      body: r.json === undefined ? undefined : JSON.stringify(r.json),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
    return { label: r.label, startedAt, endedAt: Date.now(), status: res.status, code: typeof code === 'string' ? code : null, failure: null, body };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const failure = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.message);
    return { label: r.label, startedAt, endedAt: Date.now(), status: 0, code: null, failure, body: null };
  }
}
