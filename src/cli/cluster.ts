import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';

/** Past the grace period each worker has for its own drain, the primary stops waiting. */
const EXTRA_STOP_MS = 10_000;
const RESTART_DELAY_MS = 1_000;

/**
 * The primary process of WEB_CONCURRENCY > 1: forks that many workers (each a whole
 * service: HTTP on the shared port, background jobs, its own pool), and holds no database
 * or socket itself. A worker that dies after it started listening is replaced; one that
 * dies before (it cannot start: database unreachable, port taken) stops them all, as a
 * single process failing to start would. SIGTERM or SIGINT is passed to every worker, which
 * drains as a single process does; the primary exits once all have, 0 if all exited 0.
 */
export function superviseWorkers(config: Config, log: Logger): void {
  let stopping = false;
  let failed = false;
  const listening = new WeakSet<Worker>();

  function fork(): void {
    const worker = cluster.fork();
    worker.once('listening', () => listening.add(worker));
  }

  cluster.on('exit', (worker, code, signal) => {
    if (code !== 0) failed = true;
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    if (!listening.has(worker)) {
      log.error('a worker could not start; stopping', { worker: worker.id, code, signal });
      stop('start-up failure');
      return;
    }
    log.error('a worker exited; starting another', { worker: worker.id, code, signal });
    setTimeout(() => { if (!stopping) fork(); }, RESTART_DELAY_MS).unref();
  });

  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    log.info('shutting down', { signal: reason, workers: workers.length });
    if (workers.length === 0) process.exit(failed ? 1 : 0);
    for (const w of workers) w.process.kill('SIGTERM');
    setTimeout(() => {
      log.error('workers still running after the grace period; killing them');
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      process.exit(1);
    }, config.http.shutdownGraceMs + EXTRA_STOP_MS).unref();
  }

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log.info('starting workers', { workers: config.webConcurrency, pid: process.pid });
  for (let i = 0; i < config.webConcurrency; i++) fork();
}
