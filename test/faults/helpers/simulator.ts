import { createDgiiSimulator, type DgiiSimulator } from '../../../src/dgii/simulator/index.ts';
import { createLogger } from '../../../src/log.ts';
import { startAnswerHold, type AnswerHold } from './answer-hold.ts';

// A DGII simulator in the test process, shared by the service processes through
// TAX_AUTHORITY=dgii: unlike each instance's built-in one, it outlives a killed instance
// and answers status queries for documents another instance submitted. With `hold`, the
// services reach it through a forwarder that can withhold chosen uploads' answers.

export interface SharedSimulator {
  simulator: DgiiSimulator;
  /** Environment that points a service at this simulator. */
  env: Record<string, string>;
  /** Present when started with `hold: true`. */
  hold: AnswerHold | null;
  close(): Promise<void>;
}

export async function startSharedSimulator(processingMs: number, options: { hold?: boolean } = {}): Promise<SharedSimulator> {
  const simulator = createDgiiSimulator({ processingMs, log: createLogger('silent') });
  const { url: direct } = await simulator.listen(0, '127.0.0.1');
  const hold = options.hold === true ? await startAnswerHold(direct) : null;
  const url = hold?.url ?? direct;
  return {
    simulator,
    env: { TAX_AUTHORITY: 'dgii', DGII_BASE_URL_TESTECF: `${url}/testecf`, DGII_FC_BASE_URL_TESTECF: `${url}/fc/testecf` },
    hold,
    close: async () => {
      await hold?.close();
      await simulator.close();
    },
  };
}
