import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './processes.ts';

// The libraries a user would pick instead of the service (fastify 5, graphile-worker 0.18)
// are benchmark tools, not dependencies: they live in scripts/bench/peer-libs with their own
// package.json and lockfile, installed there (`npm ci`) the first time a benchmark needs them.

export const PEER_LIBS = fileURLToPath(new URL('../peer-libs/', import.meta.url));

export async function ensurePeerLibs(): Promise<void> {
  const installed = ['fastify', 'graphile-worker', 'pino'].every((p) => existsSync(join(PEER_LIBS, 'node_modules', p, 'package.json')));
  if (installed) return;
  process.stderr.write('installing the peer libraries into scripts/bench/peer-libs (npm ci, first use)...\n');
  await run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', PEER_LIBS]);
}

export function peerScript(name: string): string {
  return join(PEER_LIBS, `${name}.ts`);
}
