import { ConfigError, loadConfigFromProcess, type Config } from './config.ts';
import { startService } from './app.ts';
import { createLogger } from './log.ts';

// Process entry point: configuration, start, and a clean exit on SIGTERM/SIGINT. The
// signal handlers are installed before start-up so a signal during start still drains.
function readConfig(): Config {
  try {
    return loadConfigFromProcess();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

const config = readConfig();
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

starting.catch((err: unknown) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
