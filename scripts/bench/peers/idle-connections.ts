import { connect, type Socket } from 'node:net';

// Opens IDLE_CONNECTIONS keep-alive connections to IDLE_TARGET (host:port), makes one
// request on each (so the server has parsed a request and keeps the socket as an idle
// keep-alive connection), then holds them. Prints {"open":n} once all answered, then
// the number still open every second.
const [host = '127.0.0.1', portText = '0'] = (process.env.IDLE_TARGET ?? '').split(':');
const wanted = Number(process.env.IDLE_CONNECTIONS ?? '1000');
const request = `GET /healthz HTTP/1.1\r\nHost: ${host}:${portText}\r\nConnection: keep-alive\r\n\r\n`;
const sockets = new Set<Socket>();
let answered = 0;

function open(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(portText), host);
    let done = false;
    socket.on('connect', () => socket.write(request));
    socket.on('data', (d: Buffer) => {
      if (!done && d.toString('latin1').startsWith('HTTP/1.1 200')) {
        done = true;
        answered++;
        resolve();
      }
    });
    socket.on('error', (err) => {
      if (!done) reject(err);
    });
    socket.on('close', () => sockets.delete(socket));
    sockets.add(socket);
  });
}

// A few at a time, as clients arrive, rather than a thousand SYNs at once.
for (let i = 0; i < wanted; i += 50) {
  await Promise.all(Array.from({ length: Math.min(50, wanted - i) }, open));
}
process.stdout.write(`${JSON.stringify({ open: sockets.size, answered })}\n`);
setInterval(() => process.stdout.write(`${JSON.stringify({ open: sockets.size })}\n`), 1000);
process.on('SIGTERM', () => {
  for (const s of sockets) s.destroy();
  process.exit(0);
});
