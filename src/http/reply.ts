import type { Reply } from './types.ts';

/** The success envelope of every JSON answer: { success: true, data }. */
export function ok(data: unknown, status = 200, headers?: Record<string, string>): Reply {
  return headers === undefined ? { status, body: { success: true, data } } : { status, body: { success: true, data }, headers };
}

export function created(data: unknown, headers?: Record<string, string>): Reply {
  return ok(data, 201, headers);
}

export function noContent(): Reply {
  return { status: 204 };
}
