import { startService } from './app.ts';
import { configOrExit, exitWithError } from './cli/exit.ts';
import { createLogger } from './log.ts';

// Process entry point: configuration, start, and a clean exit on SIGTERM/SIGINT. The
// signal handlers are installed before start-up so a signal during start still drains.
const config = configOrExit();
const log = createLogger(config.logLevel);
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

starting.catch((err: unknown) => exitWithError('failed to start', err));
