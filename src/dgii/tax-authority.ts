import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { TaxAuthority } from './authority.ts';
import { CachedDirectory, type ReceiverDirectory } from './directory.ts';
import { DgiiAuthority, DgiiClient, type DgiiClientOptions, type DgiiCredentials, type DirectoryEntry } from './protocol/index.ts';
import type { Environment } from '../environments.ts';
import { createDgiiSimulator, type DgiiSimulator } from './simulator/index.ts';
import { DgiiStatusClient, type StatusClientOptions } from './protocol/status-client.ts';

// The configured TaxAuthority. Both kinds use the real DGII client: `dgii` against DGII's
// addresses, `simulator` against a simulator started here on a free loopback port, so
// development and the tests exercise the same protocol code that production runs.

export interface RunningAuthority {
  authority: TaxAuthority;
  /** The in-process simulator (TAX_AUTHORITY=simulator), for tests that inject faults. */
  simulator: DgiiSimulator | null;
  /** DGII's protocol client (directory, Consulta Estado, approvals, timbre). */
  client: DgiiClient | null;
  /** DGII's directory of electronic receivers, cached for `directoryCacheTtlMs`. */
  directory: ReceiverDirectory;
  /** DGII's "Estatus Servicios" (the simulator's own with TAX_AUTHORITY=simulator). */
  status: DgiiStatusClient | null;
  close(): Promise<void>;
}

export interface AuthorityExtras {
  /** What the in-process simulator's directory lists (by default, the service's own tenants). */
  simulatedDirectory?: (environment: Environment, rnc: string | null) => Promise<DirectoryEntry[]>;
  directoryCacheTtlMs: number;
  /** Told of every HTTP exchange with DGII (or the simulator): /metrics counts them. */
  onDgiiRequest?: DgiiClientOptions['onRequest'];
  /** Told of every exchange with "Estatus Servicios". */
  onStatusRequest?: StatusClientOptions['onRequest'];
}

export async function startTaxAuthority(
  config: Config['authority'],
  credentials: (tenantId: number) => Promise<DgiiCredentials | null>,
  log: Logger,
  extras: AuthorityExtras = { directoryCacheTtlMs: 0 },
): Promise<RunningAuthority> {
  let urls = { baseUrls: config.baseUrls, fcBaseUrls: config.fcBaseUrls };
  let statusUrl = config.statusUrl;
  let simulator: DgiiSimulator | null = null;
  if (config.kind === 'simulator') {
    simulator = createDgiiSimulator({
      processingMs: config.simulatedProcessingMs, log: log.child({ component: 'dgii-simulator' }), statusApiKey: config.statusApiKey,
      ...(extras.simulatedDirectory === undefined ? {} : { directory: extras.simulatedDirectory }),
    });
    const { url } = await simulator.listen(0, '127.0.0.1');
    urls = { baseUrls: simulator.baseUrls(url), fcBaseUrls: simulator.fcBaseUrls(url) };
    statusUrl = url;
  }
  const status = new DgiiStatusClient({ baseUrl: statusUrl, apiKey: config.statusApiKey, timeoutMs: config.timeoutMs, ...(extras.onStatusRequest === undefined ? {} : { onRequest: extras.onStatusRequest }) });
  const client = new DgiiClient({ ...urls, timeoutMs: config.timeoutMs, credentials, ...(extras.onDgiiRequest === undefined ? {} : { onRequest: extras.onDgiiRequest }) });
  const running = simulator;
  return {
    authority: new DgiiAuthority(client),
    simulator,
    client,
    directory: new CachedDirectory(client, extras.directoryCacheTtlMs),
    status,
    close: async () => {
      await running?.close();
    },
  };
}
