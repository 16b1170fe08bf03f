// The service's code as an earlier commit had it, checked out beside this one, so a
// benchmark can measure "before" and "after" in the same run on the same machine (a figure
// from another day on a shared machine says little). A directory is used as it is; a commit
// becomes a detached git worktree in a temporary directory, sharing this checkout's
// node_modules, removed by `dispose`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes.ts';

const run = promisify(execFile);

export interface Baseline {
  /** What was asked for: the commit or the directory. */
  label: string;
  root: string;
  dispose(): Promise<void>;
}

export async function checkoutBaseline(spec: string): Promise<Baseline> {
  if (existsSync(join(spec, 'src', 'main.ts'))) return { label: spec, root: spec, dispose: async () => {} };
  const parent = await mkdtemp(join(tmpdir(), 'ecf-bench-baseline-'));
  const root = join(parent, 'service');
  await run('git', ['worktree', 'add', '--detach', root, spec], { cwd: ROOT });
  await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  const { stdout } = await run('git', ['log', '-1', '--format=%h %s', spec], { cwd: ROOT });
  return {
    label: stdout.trim().slice(0, 100),
    root,
    dispose: async () => {
      await run('git', ['worktree', 'remove', '--force', root], { cwd: ROOT }).catch(() => undefined);
      await rm(parent, { recursive: true, force: true });
    },
  };
}
