import type { IncomingMessage } from 'node:http';
import type { Environment } from '../../environments.ts';
import type { Logger } from '../../log.ts';
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
}

export type Handler = (ctx: HandlerContext) => Reply;
