import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

// The embedded database lives in files that one process at a time may open: a second
// PGlite on the same directory (`npm start` beside `npm run tenant`) keeps its own copy in
// memory and writes it back over the first one's. A lock file holding the owner's pid
// keeps the second one out; a crash leaves the file behind, so a lock whose process is gone
// is stale and taken over.

/** The data directory is open in another process (or already in this one). */
export class DataDirInUseError extends Error {
  readonly lockFile: string;
  readonly pid: number;

  constructor(lockFile: string, pid: number) {
    super(
      `The embedded database in ${lockFile.replace(/\.lock$/, '')} is in use by process ${pid} ` +
      '(a running service or `npm run tenant`): stop it first, or point both at PostgreSQL with DATABASE_URL. ' +
      `If no process ${pid} uses it, delete ${lockFile}.`,
    );
    this.lockFile = lockFile;
    this.pid = pid;
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

const held = new Set<string>();
let exitHook = false;

function ownerOf(text: string): number | null {
  return /^\d{1,10}\n?$/.test(text) ? Number(text.trim()) : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return code(err) === 'EPERM';
  }
}

function code(err: unknown): unknown {
  return (err as { code?: unknown }).code;
}

const ignoreMissing = (err: unknown): undefined => {
  if (code(err) === 'ENOENT') return undefined;
  throw err;
};

/** The pid in a lock file; null when the text is not a pid, undefined when the file is gone. */
async function lockOwner(file: string): Promise<number | null | undefined> {
  const text = await readFile(file, 'utf8').catch(ignoreMissing);
  return text === undefined ? undefined : ownerOf(text);
}

function isStale(owner: number | null, lockFile: string): boolean {
  // Our own pid in a lock this process never took is a previous process's: containers
  // hand the same pid (often 1) to every start.
  return owner === null || !isAlive(owner) || (owner === process.pid && !held.has(lockFile));
}

/**
 * Removes a stale lock while holding `<lock>.break`. Without it, two processes that both
 * found the lock stale could each remove it, the second removing the lock the first had just
 * taken, and both would go on. Under the breaker, the lock is read again before it goes; no
 * one else can remove it meanwhile, and a new lock cannot replace an existing one.
 */
async function breakStaleLock(lockFile: string, draft: string): Promise<void> {
  const breaker = `${lockFile}.break`;
  try {
    await link(draft, breaker);
  } catch (err) {
    if (code(err) !== 'EEXIST') throw err;
    const other = await lockOwner(breaker);
    // A breaker left by a process that died mid-takeover would block everyone.
    if (other !== undefined && (other === null || !isAlive(other))) await unlink(breaker).catch(ignoreMissing);
    else await delay(20);
    return;
  }
  try {
    const owner = await lockOwner(lockFile);
    if (owner !== undefined && isStale(owner, lockFile)) await unlink(lockFile).catch(ignoreMissing);
  } finally {
    await unlink(breaker).catch(ignoreMissing);
  }
}

/** Takes the lock file, or throws DataDirInUseError naming the process that holds it. */
export async function lockDataDir(lockFile: string): Promise<DataDirLock> {
  // Written aside and linked into place, so the lock never exists without its pid.
  const draft = `${lockFile}.${process.pid}.tmp`;
  await writeFile(draft, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        await link(draft, lockFile);
        held.add(lockFile);
        releaseOnExit();
        return { release: () => release(lockFile) };
      } catch (err) {
        if (code(err) !== 'EEXIST') throw err;
      }
      const owner = await lockOwner(lockFile);
      if (owner === undefined) continue;
      if (owner !== null && !isStale(owner, lockFile)) throw new DataDirInUseError(lockFile, owner);
      await breakStaleLock(lockFile, draft);
    }
    throw new Error(`Could not take the lock ${lockFile}: other processes keep taking it`);
  } finally {
    await unlink(draft).catch(() => {});
  }
}

async function release(lockFile: string): Promise<void> {
  if (!held.delete(lockFile)) return;
  const text = await readFile(lockFile, 'utf8').catch(() => null);
  if (text !== null && ownerOf(text) === process.pid) await unlink(lockFile).catch(() => {});
}

// A CLI that calls process.exit() skips its finally blocks; the lock goes with the process anyway.
function releaseOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const lockFile of held) {
      try {
        if (ownerOf(readFileSync(lockFile, 'utf8')) === process.pid) unlinkSync(lockFile);
      } catch {
        // already gone
      }
    }
  });
}
