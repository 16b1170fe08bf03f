#!/usr/bin/env node
// The service's entry point: `ecf-service` (or `node bin/ecf-service.js`) starts it,
// `ecf-service migrate` applies migrations, `ecf-service tenant create …` makes a tenant.
// Plain JavaScript on purpose, written for any Node still in use: the service itself is
// TypeScript that Node runs by type stripping, which older versions refuse with a raw
// ERR_UNKNOWN_FILE_EXTENSION. This file checks the version first and says what is needed.
var MINIMUM = [22, 18];
var parts = process.versions.node.split('.').map(Number);
var major = parts[0];
var minor = parts[1];
// Type stripping is on by default from 22.18 and, on the short-lived line 23, from 23.6.
var supported = major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= MINIMUM[1]);

if (!supported) {
  process.stderr.write(
    'ecf-service needs Node.js >= ' + MINIMUM.join('.') + ' (Node 24 LTS recommended); this is Node ' + process.version +
      ' (' + process.execPath + '): see docs/operations.md, "Installing Node 24".\n'
  );
  process.exit(1);
}

var COMMANDS = { start: '../src/main.ts', migrate: '../src/cli/migrate.ts', tenant: '../src/cli/tenant.ts' };
var command = process.argv[2] === undefined || process.argv[2].charAt(0) === '-' ? 'start' : process.argv[2];
if (!Object.prototype.hasOwnProperty.call(COMMANDS, command)) {
  process.stderr.write('unknown command "' + command + '"; usage: ecf-service [start | migrate | tenant create …]\n');
  process.exit(2);
}
// The command's own arguments are what it reads as process.argv.slice(2).
if (process.argv[2] === command) process.argv.splice(2, 1);
import(COMMANDS[command]).catch(function (err) {
  process.stderr.write('ecf-service: ' + (err && err.stack ? err.stack : String(err)) + '\n');
  process.exit(1);
});
