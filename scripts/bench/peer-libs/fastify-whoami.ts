// The HTTP core benchmark's peer: fastify 5 serving /healthz and a whoami route that does the
// same work as the service's: SHA-256 of the X-API-KEY, a Map lookup, a token bucket, a
// request id (the client's if well-formed, else a UUID), the two RateLimit headers and the
// service's other response headers, and the { success, data } envelope. LOG_LEVEL=info logs
// with fastify's own pino (its default request lines) to /dev/null asynchronously, as the
// service's log goes to /dev/null; LOG_LEVEL=off disables the logger. API_KEY is the only
// key known. Prints {"port":…} when listening. Not typechecked with the service.
import { createHash, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pino from 'pino';

const level = process.env.LOG_LEVEL ?? 'info';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const keys = new Map([[createHash('sha256').update(process.env.API_KEY ?? '').digest('hex'), { tenantId: 1, userId: null, apiKeyId: randomUUID() }]]);
const LIMIT = 1_000_000;
const WINDOW_SEC = 60;
const buckets = new Map();

function take(key) {
  const now = Date.now();
  let b = buckets.get(key);
  if (b === undefined) buckets.set(key, (b = { tokens: LIMIT, at: now }));
  b.tokens = Math.min(LIMIT, b.tokens + ((now - b.at) * LIMIT) / (WINDOW_SEC * 1000));
  b.at = now;
  if (b.tokens < 1) return null;
  b.tokens -= 1;
  return { remaining: Math.floor(b.tokens), resetSec: Math.ceil(((LIMIT - b.tokens) * WINDOW_SEC) / LIMIT) };
}

const app = Fastify({
  logger: level === 'off' ? false : { level, stream: pino.destination({ dest: '/dev/null', sync: false }) },
  genReqId: (req) => {
    const presented = req.headers['x-request-id'];
    return typeof presented === 'string' && REQUEST_ID.test(presented) ? presented : randomUUID();
  },
});
app.addHook('onSend', async (req, reply) => {
  reply.header('x-request-id', req.id);
  reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
});
app.get('/healthz', async () => ({ success: true, data: { status: 'ok' } }));
app.get('/api/whoami', async (req, reply) => {
  const key = req.headers['x-api-key'];
  const principal = typeof key === 'string' ? keys.get(createHash('sha256').update(key).digest('hex')) : undefined;
  if (principal === undefined) return reply.code(401).send({ success: false, error: { code: 'UNAUTHORIZED', message: 'Unknown API key' } });
  const t = take(principal.tenantId);
  if (t === null) return reply.code(429).send({ success: false, error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded' } });
  reply.header('ratelimit-policy', `"default";q=${LIMIT};w=${WINDOW_SEC}`);
  reply.header('ratelimit', `"default";r=${t.remaining};t=${t.resetSec}`);
  return { success: true, data: principal };
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)); });
