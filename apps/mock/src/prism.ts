import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type PrismLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface PrismOptions {
  specPath: string;
  /** Internal port; 0 picks a free one. */
  port: number;
  dynamic: boolean;
  /** Seeds Prism's data generator so dynamic responses repeat from one start to the next. */
  seed: string;
  logLevel: PrismLogLevel;
  startTimeoutMs?: number;
}

export interface PrismProcess {
  url: string;
  stop(): Promise<void>;
}

function prismBinPath(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@stoplight/prism-cli/package.json');
  const manifest = require(manifestPath) as { bin: { prism: string } };
  return join(dirname(manifestPath), manifest.bin.prism);
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('Could not pick a free port');
  return address.port;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host)
      .once('connect', () => {
        socket.destroy();
        resolve(true);
      })
      .once('error', () => resolve(false));
  });
}

// A TCP connect rather than an HTTP probe: Prism only listens once the spec is loaded, and a probe
// request would show up in its log as an unmatched route.
async function waitUntilListening(host: string, port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Prism exited with code ${child.exitCode} before listening`);
    if (await canConnect(host, port)) return;
    await sleep(150);
  }
  throw new Error(`Prism did not listen on ${host}:${port} within ${timeoutMs} ms`);
}

export async function startPrism(options: PrismOptions): Promise<PrismProcess> {
  const host = '127.0.0.1';
  const port = options.port || (await freePort());
  const args = [prismBinPath(), 'mock', options.specPath, '--host', host, '--port', String(port), '--cors'];
  args.push('--verboseLevel', options.logLevel);
  // Dynamic data stays within the schemas' declared properties (no invented extra fields).
  if (options.dynamic) args.push('--dynamic', '--seed', options.seed, '--json-schema-faker-fillProperties=false');

  // Prism's CLI crashes at start under NODE_ENV=production, so the child never inherits it.
  const { NODE_ENV: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, args, {
    env,
    stdio: ['ignore', options.logLevel === 'silent' ? 'ignore' : 'inherit', 'inherit'],
  });
  const url = `http://${host}:${port}`;
  // Prism never outlives the process that started it (a crash or process.exit included).
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitUntilListening(host, port, child, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
