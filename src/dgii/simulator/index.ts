/** The DGII simulator: DGII's HTTP services in one in-memory server, for tests and development. */
export { createDgiiSimulator } from './server.ts';
export type { DgiiSimulator, DgiiSimulatorOptions, SimulatedFault } from './server.ts';
export type { SimulatorCounters } from './state.ts';
export { runSimulatorFromArgs, SimulatorArgsError, SIMULATOR_USAGE } from './args.ts';
export type { RunningSimulator } from './args.ts';
