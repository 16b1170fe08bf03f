import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '../errors.ts';
import { Semaphore } from '../lib/semaphore.ts';

// scrypt hashes stored as $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash> (base64), so
// that parameters can be raised later: a login with an older hash rehashes it.
// Each hash needs 128·N·r bytes (128 MiB at OWASP's N=2^17, r=8), so a semaphore caps
// how many run at once and sheds load with 503 once its queue is full.

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

export class PasswordHasher {
  private readonly gate: Semaphore;
  /**
   * What unknown emails are checked against: random salt and random bytes in the stored
   * format, so checking costs one scrypt like a real user's and building it costs none. A
   * hash computed on first use would need a queue slot, and a refusal cached in its place
   * would answer 503 to every unknown email from then on, telling them from known ones.
   */
  private readonly dummy: string;
  private readonly logN: number;

  constructor(logN: number, maxConcurrent: number, maxQueue: number) {
    this.logN = logN;
    this.gate = new Semaphore(maxConcurrent, maxQueue);
    this.dummy = format({ logN, r: R, p: P }, randomBytes(16), randomBytes(KEY_LENGTH));
  }

  private guarded<T>(task: () => Promise<T>): Promise<T> {
    if (!this.gate.canEnter()) {
      throw new AppError('SERVICE_UNAVAILABLE', 'Too many sign-ins in progress; retry shortly', { headers: { 'retry-after': '1' } });
    }
    return this.gate.run(task);
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const params = { logN: this.logN, r: R, p: P };
    const key = await this.guarded(() => derive(password, salt, params, KEY_LENGTH));
    return format(params, salt, key);
  }

  /** Constant-time check; a malformed stored hash never matches. */
  async verify(password: string, stored: string): Promise<boolean> {
    const m = FORMAT.exec(stored);
    if (m === null) return false;
    const params = { logN: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
    const expected = Buffer.from(m[5] ?? '', 'base64');
    if (params.logN < 1 || params.logN > 22 || expected.length < 16) return false;
    const actual = await this.guarded(() => derive(password, Buffer.from(m[4] ?? '', 'base64'), params, expected.length));
    return timingSafeEqual(actual, expected);
  }

  /** Spends the same effort as a real check, so unknown emails are not told apart by timing. */
  async verifyAgainstDummy(password: string): Promise<false> {
    await this.verify(password, this.dummy);
    return false;
  }

  needsRehash(stored: string): boolean {
    const m = FORMAT.exec(stored);
    return m === null || Number(m[1]) < this.logN || Number(m[2]) !== R || Number(m[3]) !== P;
  }
}
