import { createDgiiSimulator } from '../../../src/dgii/simulator/index.ts';
import { createLogger } from '../../../src/log.ts';

// The DGII simulator in a process of its own, answering at once (no "En Proceso" time), so the
// pipeline benchmark measures the service's work rather than a simulated wait.
const simulator = createDgiiSimulator({ processingMs: 0, log: createLogger('silent') });
const { url } = await simulator.listen(0, '127.0.0.1');
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on('SIGTERM', () => void simulator.close().then(() => process.exit(0)));
