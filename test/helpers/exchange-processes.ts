// The exchange as taxpayers meet it: service processes of their own (`src/main.ts`), each with its
// own database, talking to the standalone DGII simulator (`src/dgii/simulator/main.ts`) whose
// directory lists their receivers (--directory, --directory-without-auth), and another
// taxpayer's receiver that publishes no authentication service.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DgiiCredentials } from '../../src/dgii/protocol/index.ts';
import { buildArecfXml, ESTADO_ACUSE } from '../../src/ecf/xml/index.ts';
import { parseXml, signXml, textAt } from '../../src/xml/index.ts';
import { createTestDatabase, SERVER_URL, type TestDatabase } from './db.ts';
import { FAST_PIPELINE } from './documents.ts';
import { ROOT, spawnService, type ServiceProcess } from './process.ts';
import { testEnv } from './service.ts';

/** A port free now, for a process that must be named in the simulator's directory before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface SimulatorProcess {
  url: string;
  child: ChildProcess;
  output: string[];
  close(): Promise<void>;
}

/** `node src/dgii/simulator/main.ts --port 0 …args`, its URL read from its first line. */
export async function spawnSimulator(args: string[]): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, ['src/dgii/simulator/main.ts', '--port', '0', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = once(child, 'exit');
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`simulator did not start:\n${output.join('')}`));
    }, 60_000);
    let buffer = '';
    child.stdout?.on('data', (d: Buffer) => {
      output.push(d.toString());
      buffer += d.toString();
      const m = /DGII simulator at (http:\/\/[^\s:]+:\d+):/.exec(buffer);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`simulator exited:\n${output.join('')}`));
    });
  });
  return {
    url, child, output,
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export interface ExchangeService {
  url: string;
  process: ServiceProcess;
  close(): Promise<void>;
}

/**
 * A service process on `port` whose tax authority is the simulator at `simulatorUrl`: a database
 * of its own on the PostgreSQL server of the run, or an embedded one in memory.
 */
export async function spawnExchangeService(simulatorUrl: string, port: number, env: Record<string, string> = {}): Promise<ExchangeService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ecf-exchange-'));
  const database: TestDatabase | null = SERVER_URL === null ? null : await createTestDatabase({ migrated: true });
  try {
    const processEnv = testEnv(dataDir, {
      ...FAST_PIPELINE,
      DATABASE_URL: database?.url ?? 'memory://',
      PORT: String(port),
      TAX_AUTHORITY: 'dgii',
      DGII_BASE_URL_TESTECF: `${simulatorUrl}/testecf`,
      DGII_FC_BASE_URL_TESTECF: `${simulatorUrl}/fc/testecf`,
      EXCHANGE_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      EXCHANGE_RETRY_BASE_MS: '20',
      EXCHANGE_RETRY_MAX_MS: '60',
      DIRECTORY_CACHE_TTL_MS: '1000',
      RATE_LIMIT_SENSITIVE_PER_MINUTE: '100000',
      ...env,
    });
    const proc = await spawnService(processEnv);
    return {
      url: proc.url,
      process: proc,
      close: async () => {
        if (proc.child.exitCode === null) {
          proc.child.kill('SIGTERM');
          await proc.exited;
        }
        await database?.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await database?.close();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export interface ReceivedUpload {
  method: string;
  path: string;
  authorization: string | undefined;
  xml: string | null;
}

/**
 * Another taxpayer's receiver that offers no authentication service (v1.6: it is optional; its
 * directory entry has an empty urlOpcional): /fe/autenticacion/* is 404; an e-CF posted to
 * /fe/recepcion/api/ecf gets its ARECF Estado 0, signed with this taxpayer's certificate; an
 * ACECF posted to /fe/aprobacioncomercial/api/ecf gets 200. Every request is kept.
 */
export interface NoAuthReceiver {
  url: string;
  requests: ReceivedUpload[];
  close(): Promise<void>;
}

function uploadedXml(body: string): string | null {
  const m = /<\?xml[\s\S]*?<\/(ECF|ACECF)>/.exec(body) ?? /<(ECF|ACECF)[\s>][\s\S]*?<\/(ECF|ACECF)>/.exec(body);
  return m?.[0] ?? null;
}

export async function startNoAuthReceiver(rnc: string, credentials: DgiiCredentials): Promise<NoAuthReceiver> {
  const requests: ReceivedUpload[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const xml = uploadedXml(Buffer.concat(chunks).toString('utf8'));
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, xml });
      if (req.method === 'POST' && path.endsWith('/fe/recepcion/api/ecf') && xml !== null) {
        const root = parseXml(xml).root;
        const arecf = buildArecfXml({
          rncEmisor: textAt(root, ['Encabezado', 'Emisor', 'RNCEmisor']) ?? '',
          rncComprador: rnc,
          encf: textAt(root, ['Encabezado', 'IdDoc', 'eNCF']) ?? '',
          estado: ESTADO_ACUSE.recibido,
          fechaHoraAcuseRecibo: new Date(),
        });
        res.writeHead(200, { 'content-type': 'application/xml' }).end(signXml(arecf, credentials.privateKey, credentials.certificate));
        return;
      }
      if (req.method === 'POST' && path.endsWith('/fe/aprobacioncomercial/api/ecf') && xml !== null) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/taxpayer`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
