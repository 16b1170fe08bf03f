import type { IncomingMessage } from 'node:http';
import type { Environment } from '../../environments.ts';
import type { Logger } from '../../log.ts';
import type { DirectoryEntry } from '../protocol/exchange-answers.ts';
import type { Reply } from './http.ts';
import type { EnvironmentState, SimulatorState } from './state.ts';

/** What a simulated service sees of one request. */
export interface HandlerContext {
  environment: Environment;
  env: EnvironmentState;
  state: SimulatorState;
  req: IncomingMessage;
  url: URL;
  /** Empty for GET. */
  body: Buffer;
  now: number;
  processingMs: number;
  log: Logger;
  /** The directory of electronic receivers: one RNC's entries, or every entry when rnc is null. */
  directory: (environment: Environment, rnc: string | null) => Promise<DirectoryEntry[]>;
}

export type Handler = (ctx: HandlerContext) => Reply | Promise<Reply>;
