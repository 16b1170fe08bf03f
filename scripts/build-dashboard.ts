// Writes src/dashboard/built/ from the TypeScript in src/dashboard/client/ and removes built
// files whose source is gone. Run after changing the dashboard: `npm run build:dashboard`.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { BUILT_DIR, compileDashboard } from './dashboard-compiler.ts';

const built = await compileDashboard();
await mkdir(BUILT_DIR, { recursive: true });
for (const name of await readdir(BUILT_DIR)) {
  if (!built.has(name)) await rm(new URL(name, BUILT_DIR));
}
for (const [name, text] of built) await writeFile(new URL(name, BUILT_DIR), text);
process.stdout.write(`src/dashboard/built: ${built.size} scripts\n`);
