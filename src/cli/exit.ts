import { ConfigError, loadConfigFromProcess, type Config } from '../config.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { MasterKeyMismatchError } from '../db/key-check.ts';

// How the service and the operator commands end when they cannot do their job. A mistake
// the operator can fix is told in its own words: a stack trace would bury the message.

/** The configuration of this process; every bad value listed on stderr and exit 2 otherwise. */
export function configOrExit(): Config {
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

/** Prints a failure (with its stack unless the operator can fix it) and exits 1. */
export function exitWithError(what: string, err: unknown): never {
  if (err instanceof ConfigError || err instanceof DataDirInUseError || err instanceof MasterKeyMismatchError) {
    process.stderr.write(`${what}: ${err.message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  process.stderr.write(`${what}: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
}
