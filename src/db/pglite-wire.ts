import { Duplex } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite';
import { BackendStatus, type PgliteSession } from './pglite-session.ts';

// An in-process stand-in for the TCP socket of the `postgres` driver: it frames the
// frontend protocol messages the driver writes and hands them one by one to PGlite,
// pushing PGlite's backend bytes back as if they came from a server.
//
// PGlite is a single backend. Several wires (the query pool's connection, the transaction
// lane's) share it through a PgliteSession, which lets one wire in at a time until the
// backend is idle again, so their messages never interleave inside an exchange or a
// transaction; we tried @electric-sql/pglite-socket, whose per-message queue interleaves
// Parse/Bind of several connections under concurrent load. No listening socket also means
// nothing on the host can reach the unauthenticated embedded database.

const PROTOCOL_TERMINATE = 0x58; // 'X'
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]); // 'S'
const ROLLBACK = Buffer.concat([Buffer.from([0x51, 0, 0, 0, 4 + 9]), Buffer.from('ROLLBACK\0')]); // 'Q'

export class PgliteWire extends Duplex {
  /** The driver checks this before sending its Terminate message. */
  readyState: 'open' | 'closed' = 'open';
  private pending: Buffer = Buffer.alloc(0);
  private startupSeen = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly backend = new BackendStatus();
  private readonly db: PGlite;
  private readonly session: PgliteSession;

  constructor(db: PGlite, session: PgliteSession) {
    super();
    this.db = db;
    this.session = session;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const messages = this.frame(chunk);
    this.chain = this.chain.then(() => this.run(messages));
    this.chain.then(() => callback(), (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.close();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.readyState = 'closed';
    this.chain = this.chain.then(() => this.leave(), () => this.leave());
    callback(error);
  }

  private isClosed(): boolean {
    return this.readyState === 'closed';
  }

  setKeepAlive(): this {
    return this;
  }

  /** Splits the byte stream into whole protocol messages, keeping any partial tail. */
  private frame(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      // The startup message has no type byte: Int32 length, then the protocol version.
      const headerLength = this.startupSeen ? 5 : 4;
      if (this.pending.length < headerLength) break;
      const length = this.startupSeen ? 1 + this.pending.readInt32BE(1) : this.pending.readInt32BE(0);
      if (this.pending.length < length) break;
      out.push(this.pending.subarray(0, length));
      this.pending = this.pending.subarray(length);
      this.startupSeen = true;
    }
    return out;
  }

  private async run(messages: Buffer[]): Promise<void> {
    for (const message of messages) {
      if (this.readyState === 'closed') return;
      if (message[0] === PROTOCOL_TERMINATE && this.startupSeen) {
        this.close();
        return;
      }
      await this.session.acquire(this);
      // It may have closed while waiting for the backend.
      if (this.isClosed()) return this.leave();
      this.backend.sent();
      await this.db.execProtocolRawStream(new Uint8Array(message), {
        onRawData: (data) => {
          if (data.length === 0) return;
          this.backend.feed(data);
          this.push(Buffer.from(data));
        },
      });
      if (this.backend.idle) this.session.release(this);
    }
  }

  /**
   * Gives the backend back. A server rolls back the transaction of a connection that closes;
   * PGlite's backend outlives its connections, so a wire closed in the middle of an exchange
   * or a transaction ends it here, before the next wire gets the backend.
   */
  private async leave(): Promise<void> {
    if (!this.session.holds(this)) return;
    try {
      if (!this.backend.idle) await this.execQuietly(SYNC);
      if (!this.backend.idle) await this.execQuietly(ROLLBACK);
    } finally {
      this.session.release(this);
    }
  }

  private async execQuietly(message: Buffer): Promise<void> {
    this.backend.sent();
    await this.db.execProtocolRawStream(new Uint8Array(message), { onRawData: (data) => this.backend.feed(data) });
  }

  private close(): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.chain = this.chain.then(() => this.leave(), () => this.leave());
    // Ending the readable side lets the stream auto-destroy once the driver has ended
    // its writable side, which emits the 'close' the driver waits for.
    this.push(null);
  }
}
