import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

// The webhook receiver of the webhooks benchmark: answers every POST with 204 once its body
// has arrived, and counts them. GET /stats tells the count and the times (ms since this
// process started) of the first and last POST; POST /reset forgets them.
let count = 0;
let first: number | null = null;
let last: number | null = null;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count, first, last }));
    return;
  }
  if (req.url === '/reset') {
    count = 0;
    first = null;
    last = null;
    res.writeHead(204).end();
    return;
  }
  req.resume();
  req.on('end', () => {
    const now = performance.now();
    count++;
    first ??= now;
    last = now;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
