import net from 'node:net';

// The sockets of the connections to a PostgreSQL server, made here (the driver's `socket`
// option) rather than by the driver, to undo a defect of postgres 3.4.9 that otherwise
// leaves a pooled connection unable to open again after its socket closed.
//
// The driver sends a small message on the next turn: write() adds it to a buffer and, if no
// flush is scheduled yet, schedules one with setImmediate; the flush writes the buffer and
// marks the flush as no longer scheduled. When the socket closes between a write and its
// flush, closed() cancels the flush but leaves it marked as scheduled, and leaves the buffer
// (connection.js, closed() and terminate()). From then on every write of that connection
// only grows the buffer: on each reconnect the startup message is never sent, the driver
// waits connect_timeout and fails the query waiting for the connection with CONNECT_TIMEOUT,
// and tries again, until the buffer passes 1 KiB and is written at once: the stale
// statements and several startup messages, which the server refuses. A cut connection
// under load does this (test/faults/database-outage.test.ts saw a pool connection fail
// every query routed to it for 5 s at a time, tens of seconds after the database was back;
// test/db-socket.test.ts makes it happen on purpose). The state sits in the connection's
// closure, so nothing outside the driver can reset it directly; but the socket shows it:
//
// - A healthy connection writes its first message (startup, or the TLS request) on the turn
//   after the socket is made. A socket that has received nothing by the turn after that
//   belongs to a stuck connection: it is closed at once, and the driver reconnects (without
//   waiting connect_timeout).
// - Each reconnect adds a startup message to the stale buffer, so after a few the buffer is
//   written. A first write that is not one opening message alone is that buffer: it is
//   dropped rather than sent, and the socket closed. The flush has now run, so the driver's
//   state is clean, and its next connection opens normally.
//
// test/db-server-socket.test.ts shows the defect on the driver alone: when that test fails,
// the driver has been fixed and this module can go. Should a later driver write its first
// message later than that, healthy connections would look stuck: after SILENT_LIMIT silent
// sockets in a row they are left to the driver's connect_timeout, rather than reconnect in a
// loop.

/** The parsed driver options the sockets are made from. */
export interface ServerAddress {
  host: string[];
  port: number[];
  /** A Unix-domain socket path, when the host is a directory. */
  path: string | false;
}

/** Silent sockets in a row after which they are left to connect_timeout (see above). */
const SILENT_LIMIT = 64;

/** The codes of the messages that may open a connection: protocol 3.0 startup, SSL, cancel, GSS encryption. */
const OPENING_CODES = new Set([196_608, 80_877_103, 80_877_102, 80_877_104]);

/** Exactly one opening message: its length (which counts itself), then its code. */
function isOpening(chunk: Uint8Array | string): boolean {
  if (typeof chunk === 'string' || chunk.byteLength < 8) return false;
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return view.getInt32(0) === chunk.byteLength && OPENING_CODES.has(view.getInt32(4));
}

type WriteCallback = (err?: Error | null) => void;

/**
 * Watches what the driver writes first on `socket`: one opening message is sent on, anything
 * else is the stale buffer, dropped. Returns whether the driver has written yet. Installed
 * after connect(), which puts back the prototype's write() (a subclass's override too).
 */
function watchFirstWrite(socket: net.Socket, onOpening: () => void, onStale: () => void): () => boolean {
  const send = socket.write.bind(socket);
  let wrote = false;
  socket.write = (chunk: Uint8Array | string, encodingOrCallback?: BufferEncoding | WriteCallback, callback?: WriteCallback): boolean => {
    if (!wrote) {
      wrote = true;
      if (isOpening(chunk)) onOpening();
      else {
        onStale();
        socket.destroy();
        const cb = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
        if (cb !== undefined) process.nextTick(cb, new Error('a stale write buffer was dropped'));
        return false;
      }
    }
    return typeof encodingOrCallback === 'function' ? send(chunk, encodingOrCallback) : send(chunk, encodingOrCallback, callback);
  };
  return () => wrote;
}

/**
 * The driver's `socket` option for a server: a new TCP (or Unix-domain) socket per
 * connection attempt, which closes itself when it finds its connection stuck as described
 * above. `onStuck` is told each time (for the log).
 */
export function serverSockets(onStuck: (what: 'silent' | 'stale') => void): (options: ServerAddress) => net.Socket {
  let turn = 0;
  let silentInARow = 0;
  return (options) => {
    const socket = new net.Socket();
    // What the driver's error messages name (it sets these on the sockets it makes itself).
    if (options.path !== false) {
      Object.assign(socket, { host: options.path });
      socket.connect(options.path);
    } else {
      // Several hosts are tried in turn, as the driver does with the sockets it makes.
      const i = turn++ % options.host.length;
      const host = options.host[i] ?? 'localhost';
      const port = options.port[i] ?? options.port[0] ?? 5432;
      Object.assign(socket, { host, port });
      // No Nagle delay, as libpq: a batch's COMMIT is a small message sent right behind its
      // large writes (src/documents/numbering.ts), and must not wait for their acknowledgement.
      socket.setNoDelay(true);
      socket.connect(port, host);
    }
    const wrote = watchFirstWrite(socket, () => (silentInARow = 0), () => onStuck('stale'));
    // The driver writes its first message in the microtasks after this returns, and
    // schedules that write's flush then: queued after the first immediate below, and run
    // before the second.
    setImmediate(() => setImmediate(() => {
      if (wrote() || socket.destroyed || silentInARow >= SILENT_LIMIT) return;
      silentInARow++;
      onStuck('silent');
      socket.destroy();
    }));
    return socket;
  };
}
