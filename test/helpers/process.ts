import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: string[];
  exited: Promise<number | null>;
}

/**
 * Starts the service through its entry point `bin/ecf-service.js` as a real process and waits for its "listening" line. A start that times out
 * kills the child: an orphan would keep its test file (and so the whole run) alive forever.
 */
export async function spawnService(env: Record<string, string>, timeoutMs = 90_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['bin/ecf-service.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start within ${timeoutMs} ms:\n${output.join('')}`));
    }, timeoutMs);
    let buffer = '';
    child.stdout?.on('data', (d: Buffer) => {
      output.push(d.toString());
      buffer += d.toString();
      const m = /"msg":"listening",(?:"worker":\d+,)?"url":"([^"]+)"/.exec(buffer);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output.join('')}`));
    });
  });
  return { child, url, output, exited };
}

/** Whether process `pid` has ended: no longer listed, or a zombie its parent has yet to reap (Linux). */
export async function processGone(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Files this process holds open under `parent` (Linux /proc; an unlinked one reads "… (deleted)"). */
export function openFilesUnder(parent: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${parent}/`)) open.push(target);
    } catch {
      // closed between the listing and the readlink
    }
  }
  return open;
}
