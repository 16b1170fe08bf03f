import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { TaxAuthority } from './authority.ts';
import { DgiiAuthority, DgiiClient, type DgiiCredentials } from './protocol/index.ts';
import { createDgiiSimulator, type DgiiSimulator } from './simulator/index.ts';

// The configured TaxAuthority. Both kinds use the real DGII client: `dgii` against DGII's
// addresses, `simulator` against a simulator started here on a free loopback port, so
// development and the tests exercise the same protocol code that production runs.

export interface RunningAuthority {
  authority: TaxAuthority;
  /** The in-process simulator (TAX_AUTHORITY=simulator), for tests that inject faults. */
  simulator: DgiiSimulator | null;
  close(): Promise<void>;
}

export async function startTaxAuthority(
  config: Config['authority'],
  credentials: (tenantId: number) => Promise<DgiiCredentials | null>,
  log: Logger,
): Promise<RunningAuthority> {
  let urls = { baseUrls: config.baseUrls, fcBaseUrls: config.fcBaseUrls };
  let simulator: DgiiSimulator | null = null;
  if (config.kind === 'simulator') {
    simulator = createDgiiSimulator({ processingMs: config.simulatedProcessingMs, log: log.child({ component: 'dgii-simulator' }) });
    const { url } = await simulator.listen(0, '127.0.0.1');
    urls = { baseUrls: simulator.baseUrls(url), fcBaseUrls: simulator.fcBaseUrls(url) };
  }
  const client = new DgiiClient({ ...urls, timeoutMs: config.timeoutMs, credentials });
  const running = simulator;
  return {
    authority: new DgiiAuthority(client),
    simulator,
    close: async () => {
      await running?.close();
    },
  };
}
