import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors.ts';
import { FairGate } from '../lib/fair-gate.ts';
import { TokenBucketLimiter } from '../ratelimit/token-bucket.ts';
import { HashTimings } from './hash-timing.ts';

// scrypt hashes stored as $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash> (base64), so
// that parameters can be raised later: a login with an older hash rehashes it.
// Each hash needs 128·N·r bytes (128 MiB at OWASP's N=2^17, r=8), so a gate caps how many
// run at once and sheds load with 503 once its queue is full. The hashes waiting are served
// round-robin by tenant, and each account may have only a few waiting: wrong passwords sent
// in bulk for a few known accounts delay their own tenant's sign-ins, not everyone's.
//
// Sign-ins with an email no user has must take as long as real ones, or response times
// would tell which emails exist; yet if each cost a real hash in the same queue, a flood of
// made-up emails from many addresses would fill it and turn every real sign-in away. So
// unknown emails never enter that queue. They have a lane of their own, one hash at a time
// and at most `unknownPerMinute` hashes a minute for the whole instance; an unknown email
// that finds the lane busy or the budget spent is answered after a delay drawn from the
// durations of recent real checks (known accounts' and the lane's), without hashing. The
// real hashes the lane still runs keep those durations current when nobody signs in.

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

interface Params {
  logN: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, params: Params, keyLength: number): Promise<Buffer> {
  const N = 2 ** params.logN;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function format(params: Params, salt: Buffer, key: Buffer): string {
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const UNKNOWN_LANE = 1;
const MINUTE_MS = 60_000;
/** Hashes one tenant may have waiting (its accounts together). */
const MAX_QUEUED_PER_TENANT = 8;
/** Hashes one account may have waiting; more are shed at once (503), the account's own loss. */
const MAX_QUEUED_PER_ACCOUNT = 2;

/** Who a hash is for: its tenant (the turn it waits in) and account (its own cap). */
export interface HashOwner {
  tenant: string;
  account: string;
}

/** Registrations share one turn: they have no tenant yet. */
const NEW_ACCOUNT: HashOwner = { tenant: 'registration', account: 'registration' };

export class PasswordHasher {
  private readonly gate: FairGate;
  /** Hashes each account has waiting or running. */
  private readonly perAccount = new Map<string, number>();
  /**
   * What unknown emails are hashed against: random salt and random bytes, so checking costs
   * one scrypt like a real user's and building it costs none.
   */
  private readonly dummy: Parsed;
  private readonly current: Params;
  private readonly unknownBudget: TokenBucketLimiter;
  private unknownRunning = 0;
  private readonly timings = new HashTimings();
  private readonly counts = { unknownHashed: 0, unknownDelayed: 0 };
  private readonly logN: number;

  constructor(logN: number, maxConcurrent: number, maxQueue: number, unknownPerMinute = 30) {
    this.logN = logN;
    this.gate = new FairGate(maxConcurrent, maxQueue, MAX_QUEUED_PER_TENANT);
    this.current = { logN, r: R, p: P };
    this.dummy = { params: this.current, salt: randomBytes(16), expected: randomBytes(KEY_LENGTH) };
    this.unknownBudget = new TokenBucketLimiter(unknownPerMinute, MINUTE_MS, 10);
  }

  private async guarded<T>(owner: HashOwner, task: () => Promise<T>): Promise<T> {
    const held = this.perAccount.get(owner.account) ?? 0;
    if (held > MAX_QUEUED_PER_ACCOUNT || !this.gate.canEnter(owner.tenant)) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Too many sign-ins in progress; retry shortly', { headers: { 'retry-after': '1' } });
    }
    this.perAccount.set(owner.account, held + 1);
    try {
      return await this.gate.run(owner.tenant, task);
    } finally {
      const left = (this.perAccount.get(owner.account) ?? 1) - 1;
      if (left === 0) this.perAccount.delete(owner.account);
      else this.perAccount.set(owner.account, left);
    }
  }

  /** A new hash (registration, a password change) for `owner`. */
  async hash(password: string, owner: HashOwner = NEW_ACCOUNT): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.guarded(owner, () => derive(password, salt, this.current, KEY_LENGTH));
    return format(this.current, salt, key);
  }

  /** Constant-time check; a malformed stored hash never matches. */
  async verify(password: string, stored: string, owner: HashOwner): Promise<boolean> {
    const parsed = parse(stored);
    if (parsed === null) return false;
    const started = performance.now();
    const actual = await this.guarded(owner, () => derive(password, parsed.salt, parsed.params, parsed.expected.length));
    // Waiting included: it is part of what a sign-in of a known account takes.
    if (sameParams(parsed.params, this.current)) this.timings.record(performance.now() - started);
    return timingSafeEqual(actual, parsed.expected);
  }

  /** Answers as late as a real check would, hashing only within the unknown-email lane and budget. */
  async verifyAgainstDummy(password: string): Promise<false> {
    if (this.unknownRunning < UNKNOWN_LANE && this.unknownBudget.take('unknown').allowed) {
      this.unknownRunning++;
      const started = performance.now();
      try {
        await derive(password, this.dummy.salt, this.dummy.params, this.dummy.expected.length);
      } finally {
        this.unknownRunning--;
        this.timings.record(performance.now() - started);
      }
      this.counts.unknownHashed++;
      return false;
    }
    this.counts.unknownDelayed++;
    await sleep(await this.timings.draw());
    return false;
  }

  /** Unknown-email sign-ins answered with a real hash and with a drawn delay, since start. */
  stats(): { unknownHashed: number; unknownDelayed: number } {
    return { ...this.counts };
  }

  needsRehash(stored: string): boolean {
    const m = FORMAT.exec(stored);
    return m === null || Number(m[1]) < this.logN || Number(m[2]) !== R || Number(m[3]) !== P;
  }
}

interface Parsed {
  params: Params;
  salt: Buffer;
  expected: Buffer;
}

function parse(stored: string): Parsed | null {
  const m = FORMAT.exec(stored);
  if (m === null) return null;
  const params = { logN: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  const expected = Buffer.from(m[5] ?? '', 'base64');
  if (params.logN < 1 || params.logN > 22 || expected.length < 16) return null;
  return { params, salt: Buffer.from(m[4] ?? '', 'base64'), expected };
}

function sameParams(a: Params, b: Params): boolean {
  return a.logN === b.logN && a.r === b.r && a.p === b.p;
}
