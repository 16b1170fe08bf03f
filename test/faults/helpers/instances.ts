import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAST_PIPELINE } from '../../helpers/documents.ts';
import { spawnService, type ServiceProcess } from '../../helpers/process.ts';
import { testEnv } from '../../helpers/service.ts';

// Service instances as real child processes (bin/ecf-service.js, through spawnService), so that they can be killed,
// counted in RSS, and run side by side on one database.

export interface Instance {
  url: string;
  pid: number;
  process: ServiceProcess;
  /** kill -9, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and the exit code. */
  stop(): Promise<number | null>;
  /** Resident memory from /proc/<pid>/status, in bytes. */
  rss(): Promise<number>;
}

const running = new Set<Instance>();
let dataDir: string | undefined;

/** Environment shared by the fault tests: fast pipeline, loopback webhooks, generous limits. */
export async function faultEnv(databaseUrl: string, overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  dataDir ??= await mkdtemp(join(tmpdir(), 'ecf-faults-'));
  return testEnv(dataDir, {
    ...FAST_PIPELINE,
    DATABASE_URL: databaseUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '20',
    RATE_LIMIT_SENSITIVE_PER_MINUTE: '100000',
    ...overrides,
  });
}

export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const proc = await spawnService(env, 60_000);
  const pid = proc.child.pid;
  if (pid === undefined) throw new Error('the service process has no pid');
  const instance: Instance = {
    url: proc.url,
    pid,
    process: proc,
    kill: async () => {
      proc.child.kill('SIGKILL');
      await proc.exited;
      running.delete(instance);
    },
    stop: async () => {
      proc.child.kill('SIGTERM');
      const code = await proc.exited;
      running.delete(instance);
      return code;
    },
    rss: async () => {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
      if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
      return Number(kib) * 1024;
    },
  };
  running.add(instance);
  void proc.exited.then(() => running.delete(instance));
  return instance;
}

/** Kills whatever a failed test left running and removes the data directory. */
export async function stopAllInstances(): Promise<void> {
  await Promise.all([...running].map((i) => i.kill()));
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}
