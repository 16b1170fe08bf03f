// Runs the DGII simulator: `node src/dgii/simulator/main.ts --port 8090 --processing-ms 2000`.
import { runSimulatorFromArgs, SimulatorArgsError } from './args.ts';

try {
  const { simulator, url } = await runSimulatorFromArgs(process.argv.slice(2));
  process.stdout.write(`DGII simulator at ${url}: e-CF base ${url}/testecf (also /certecf, /ecf), RFCE base ${url}/fc/testecf\n`);
  const stop = (): void => {
    void simulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  process.stderr.write(`${err instanceof SimulatorArgsError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 2;
}
