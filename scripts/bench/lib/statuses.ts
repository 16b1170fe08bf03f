import type { ServiceProcess } from './processes.ts';
import type { WrkResult } from './wrk.ts';

// wrk counts a response as an error only when its status is above 399 (its "Non-2xx or 3xx
// responses" line), Lua script or not, and a 3xx passes as a success. The service counts
// every answer by route and status in its /metrics, so a run's answers outside 2xx are read
// there too, between a scrape before the run and one after it.

export type StatusCounts = Map<string, number>;

/** The service's count of answers to `method route`, by status; null when /metrics is not open to the benchmark. */
export async function statusCounts(service: ServiceProcess, method: string, route: string): Promise<StatusCounts | null> {
  const headers: Record<string, string> = service.env.METRICS_TOKEN === undefined ? {} : { authorization: `Bearer ${service.env.METRICS_TOKEN}` };
  const res = await fetch(`${service.url}/metrics`, { headers });
  if (res.status !== 200) return null;
  const counts: StatusCounts = new Map();
  const prefix = `ecf_http_requests_total{method="${method}",route="${route}",status="`;
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const m = /^(\d{3})"\} (\d+)$/.exec(line.slice(prefix.length));
    if (m?.[1] !== undefined) counts.set(m[1], Number(m[2]));
  }
  return counts;
}

/**
 * Answers outside 2xx counted between two scrapes. 499 is left out: it is the service's
 * record of a client that hung up before the answer, which wrk does to every connection
 * still waiting when its run ends (as many as it has connections).
 */
export function non2xxBetween(before: StatusCounts, after: StatusCounts): number {
  let n = 0;
  for (const [status, count] of after) if (!status.startsWith('2') && status !== '499') n += count - (before.get(status) ?? 0);
  return n;
}

/**
 * A run's failed requests: wrk's socket errors, plus the answers outside 2xx as the service
 * counted them (which include 3xx), or as wrk did (4xx and 5xx) when /metrics was not open.
 */
export function failedRequests(run: WrkResult, serverNon2xx: number | null): number {
  return run.socketErrors + Math.max(run.non2xx, serverNon2xx ?? 0);
}
