// PGlite is a single backend, so every driver connection to it shares one session: one
// transaction state, one unnamed statement. Connections (one PgliteWire each) therefore take
// turns, and a turn lasts until the backend is idle: a ReadyForQuery saying "not in a
// transaction" ends the last exchange the holder started. Whatever another connection sends
// meanwhile waits, as it would for a row lock on a server, instead of running inside the
// holder's transaction.

const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I': not in a transaction block

/** Follows the backend's messages to one connection, to tell when the backend is idle. */
export class BackendStatus {
  private readonly head: number[] = [];
  private bodyLeft = 0;
  private type = 0;
  private status = 0;
  /** The transaction status of the last message if it was a ReadyForQuery, else null. */
  private ready: number | null = IDLE;

  /** True when the last message was a ReadyForQuery outside a transaction. */
  get idle(): boolean {
    return this.ready === IDLE;
  }

  /** A message was sent to the backend: until its ReadyForQuery, the backend is not idle. */
  sent(): void {
    this.ready = null;
  }

  /** Reads message boundaries (type byte, Int32 length) from the backend's bytes. */
  feed(data: Uint8Array): void {
    let i = 0;
    while (i < data.length) {
      if (this.bodyLeft === 0 && this.head.length < 5) {
        this.head.push(data[i++] as number);
        if (this.head.length < 5) continue;
        const [type, a, b, c, d] = this.head as [number, number, number, number, number];
        this.type = type;
        this.bodyLeft = (((a << 24) | (b << 16) | (c << 8) | d) >>> 0) - 4;
        this.ready = null;
        if (this.bodyLeft <= 0) this.complete();
        continue;
      }
      if (this.type === READY_FOR_QUERY) this.status = data[i] as number;
      const take = Math.min(this.bodyLeft, data.length - i);
      i += take;
      this.bodyLeft -= take;
      if (this.bodyLeft === 0) this.complete();
    }
  }

  private complete(): void {
    this.head.length = 0;
    this.bodyLeft = 0;
    if (this.type === READY_FOR_QUERY) this.ready = this.status;
  }
}

/** Hands the one backend to one connection at a time, first come first served. */
export class PgliteSession {
  private holder: object | null = null;
  private readonly queue: { connection: object; resume: () => void }[] = [];

  holds(connection: object): boolean {
    return this.holder === connection;
  }

  /** Resolves once `connection` holds the backend (at once if it already does). */
  acquire(connection: object): Promise<void> {
    if (this.holder === null || this.holder === connection) {
      this.holder = connection;
      return Promise.resolve();
    }
    return new Promise((resume) => this.queue.push({ connection, resume }));
  }

  release(connection: object): void {
    if (this.holder !== connection) return;
    const next = this.queue.shift();
    this.holder = next?.connection ?? null;
    next?.resume();
  }
}
