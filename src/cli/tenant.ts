import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Authenticator } from '../auth/authenticator.ts';
import { IdentityService } from '../auth/identity.ts';
import { PasswordHasher } from '../auth/passwords.ts';
import { TokenIssuer } from '../auth/tokens.ts';
import { deriveKeys, loadMasterKey } from '../crypto/master-key.ts';
import { openDatabase } from '../db/connect.ts';
import { checkMasterKey } from '../db/key-check.ts';
import { migrate } from '../db/migrate.ts';
import { AppError, errorMessage } from '../errors.ts';
import { EMAIL, RNC } from '../lib/input.ts';
import { taxIdProblem } from '../ecf/tax-id.ts';
import { createLogger } from '../log.ts';
import { configOrExit, exitWithError } from './exit.ts';

// npm run tenant -- create --name "Empresa SRL" --rnc 131880681 --email admin@empresa.do [--password …]
// Creates a tenant, its first user and API key without the HTTP API (for closed deployments
// with REGISTRATION_ENABLED=false). Prints the credentials once, as JSON, on stdout.
const USAGE = 'usage: npm run tenant -- create --name <business name> --rnc <9 or 11 digits> --email <email> [--password <password>]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function readArgs() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { name: { type: 'string' }, rnc: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    });
  } catch (err) {
    return fail(errorMessage(err));
  }
}

const { positionals, values } = readArgs();

if (positionals[0] !== 'create') fail('unknown command');
const { name, rnc, email } = values;
if (name === undefined || name.trim() === '') fail('--name is required');
if (rnc === undefined || !RNC.test(rnc)) fail('--rnc must be 9 or 11 digits');
const rncProblem = taxIdProblem(rnc);
if (rncProblem !== undefined) fail(`--rnc must be a valid RNC or cédula: ${rncProblem}`);
if (email === undefined || !EMAIL.test(email)) fail('--email must be an email address');
const password = values.password ?? randomBytes(15).toString('base64url');
if (password.length < 10) fail('--password must have at least 10 characters');

const config = configOrExit();
const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
const db = await openDatabase(config, log).catch((err: unknown) => exitWithError('cannot open the database', err));
try {
  await migrate(db.sql, log);
  const master = await loadMasterKey(config, log);
  await checkMasterKey(db.sql, master, log);
  const jwtKey = deriveKeys(master)['jwt-signing'];
  const authenticator = new Authenticator(db.sql, jwtKey, config.auth, log);
  const identity = new IdentityService(
    db.sql,
    new PasswordHasher(config.auth.scryptLogN, 1, 1),
    new TokenIssuer(db.sql, jwtKey, config.auth, log, authenticator),
    authenticator,
    log,
  );
  const created = await identity.createTenant({ name: name.trim(), rnc, email, password });
  process.stdout.write(JSON.stringify({ ...created, password: values.password === undefined ? password : '(as given)' }, null, 2) + '\n');
} catch (err) {
  await db.close().catch(() => {});
  if (err instanceof AppError) fail(`${err.code}: ${err.message}`);
  exitWithError('tenant creation failed', err);
}
await db.close();
