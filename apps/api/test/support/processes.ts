import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll } from 'vitest';

// The server's entry points in child processes, for the tests that need whole processes (start, several
// instances, crash and restart). Always the node binary running the tests (the repo's Node 24), never a
// wrapper script, so a signal reaches the server itself. Every child is SIGKILLed when its file ends.

const APP_DIR = join(import.meta.dirname, '..', '..');
const running = new Set<ChildProcess>();
afterAll(() => killServerProcesses());

interface Spawned {
  child: ChildProcess;
  /** Everything it wrote, stdout and stderr. */
  output: () => string;
  /** What it wrote to stdout alone. */
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnNode(argv: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, argv, { cwd: APP_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => output, stdout: () => stdout, exited };
}

/**
 * A TypeScript entry point (`src/….ts`, or a test's fixture, through tsx), e.g. the admin CLI or the worker,
 * with `nodeArgs` before it (V8 flags); resolves `exited` with the exit code.
 */
export function run(
  script: string,
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
): { child: ChildProcess; output: () => string; stdout: () => string; exited: Promise<number | null> } {
  const spawned = spawnNode([...nodeArgs, '--import', 'tsx', script, ...args], { PATH: process.env.PATH ?? '', ...env });
  return { child: spawned.child, output: spawned.output, stdout: spawned.stdout, exited: spawned.exited.then(({ code }) => code) };
}

export interface Started {
  child: ChildProcess;
  /** http://127.0.0.1:<port> (health checks live here; the API under /api/v1). */
  url: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** `src/main.ts` (through tsx) on a free port, once it logs where it listens. */
export async function startServer(env: Record<string, string>): Promise<Started> {
  const { child, output, exited } = run('src/main.ts', [], { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)\/api\/v1"/.exec(output());
    if (match?.[1]) return { child, url: match[1], stdout: output, exited };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${output()}`);
}

export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> (health checks live here). */
  origin: string;
  /** The API base, `${origin}/api/v1`. */
  api: string;
  /** Resolves once the process has exited, with its exit code (null when killed by a signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines it wrote, for a failure message. */
  logTail(): string;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
}

/**
 * The built server (`node dist/main.js`, as `pnpm start` runs it; `pnpm build` runs before the tests)
 * with `env` on a free port (PORT=0, read back from its log), once /readyz answers 200.
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 120_000): Promise<ServerProcess> {
  const { child, output, exited } = spawnNode([join(APP_DIR, 'dist/main.js')], {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ...env,
  } as Record<string, string>);
  const logTail = () => output().split('\n').slice(-40).join('\n');
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`the server exited before it was ready:\n${logTail()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server was not ready within ${timeoutMs} ms:\n${logTail()}`);
    }
    const origin = /"url":"(http:\/\/127\.0\.0\.1:\d+)\/api\/v1"/.exec(output())?.[1];
    if (origin) {
      const ready = await fetch(`${origin}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) return { child, origin, api: `${origin}/api/v1`, exited, logTail, output };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGKILLs every process still running (for afterAll, whatever the tests left behind). */
export async function killServerProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
