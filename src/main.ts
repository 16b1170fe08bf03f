import cluster from 'node:cluster';
import { startService } from './app.ts';
import { superviseWorkers } from './cli/cluster.ts';
import { configOrExit, exitWithError } from './cli/exit.ts';
import { createLogger } from './log.ts';

// Process entry point: configuration, start, and a clean exit on SIGTERM/SIGINT. The
// signal handlers are installed before start-up so a signal during start still drains.
// With WEB_CONCURRENCY > 1 this process is the primary of that many cluster workers, each
// of which runs this file as a whole service.
const config = configOrExit();
if (cluster.isPrimary && config.webConcurrency > 1) superviseWorkers(config, createLogger(config.logLevel));
else serve();

function serve(): void {
  const base = createLogger(config.logLevel);
  // A worker's lines name it, so several workers' logs on one stdout can be told apart.
  const log = cluster.isWorker ? base.child({ worker: cluster.worker?.id }) : base;
  const starting = startService(config, { log });
  let stopping = false;

  function stop(signal: string): void {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    starting
      .then((service) => service.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error('shutdown failed', { err });
          process.exit(1);
        },
      );
  }

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A worker whose primary is gone (killed) drains and exits instead of serving on alone.
  if (cluster.isWorker) process.on('disconnect', () => stop('primary gone'));

  starting.catch((err: unknown) => exitWithError('failed to start', err));
}
