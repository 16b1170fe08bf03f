import { createDgiiSimulator, type DgiiSimulator } from '../../../src/dgii/simulator/index.ts';
import { createLogger } from '../../../src/log.ts';

// A DGII simulator in the test process, shared by the service processes through
// TAX_AUTHORITY=dgii: unlike each instance's built-in one, it outlives a killed instance
// and answers status queries for documents another instance submitted.

export interface SharedSimulator {
  simulator: DgiiSimulator;
  /** Environment that points a service at this simulator. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSharedSimulator(processingMs: number): Promise<SharedSimulator> {
  const simulator = createDgiiSimulator({ processingMs, log: createLogger('silent') });
  const { url } = await simulator.listen(0, '127.0.0.1');
  return {
    simulator,
    env: { TAX_AUTHORITY: 'dgii', DGII_BASE_URL_TESTECF: `${url}/testecf`, DGII_FC_BASE_URL_TESTECF: `${url}/fc/testecf` },
    close: () => simulator.close(),
  };
}
