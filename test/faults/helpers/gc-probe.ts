import { readdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Preloaded into a service process by the malformed-input test (NODE_OPTIONS), never by the
// service itself: on SIGUSR2 it runs a full garbage collection and prints what is left
// afterwards as one JSON line on stderr: the JS heap, memory held outside it for JS objects
// (Buffers, zlib streams, crypto objects: `external`), RSS, and the open file descriptors.
// Without a forced collection the heap a scrape sees swings by tens of MiB between
// collections, which hides a slow leak.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
let seq = 0;

process.on('SIGUSR2', () => {
  gc();
  const { heapUsed, external, rss } = process.memoryUsage();
  const fds = readdirSync('/proc/self/fd').length;
  process.stderr.write(`${JSON.stringify({ gcProbe: ++seq, heapUsed, external, rss, fds })}\n`);
});
