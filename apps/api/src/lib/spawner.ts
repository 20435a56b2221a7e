// Child processes of the server (document parsers, ffmpeg, ffprobe) are started by one small host process
// (spawn-host.ts), never by the server itself: a fork() from the server copies its page tables and held its
// event loop 10–13 ms per child in production. The host starts on first use, again after it has died; a
// host that dies fails what was waiting on it.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostEvent, HostRequest, WorkerFailure, WorkerLimits } from './spawn-host.js';

export type { WorkerFailure, WorkerLimits } from './spawn-host.js';

// Under the test runner the sources are TypeScript, which Node 24 runs itself (type stripping).
const HOST_PATH = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './spawn-host.ts' : './spawn-host.js', import.meta.url));

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Listener = (event: HostEvent | { type: 'lost' }) => void;

let host: { child: ChildProcess; listeners: Map<number, Listener> } | null = null;
let nextId = 0;

function spawnHost(): NonNullable<typeof host> {
  if (host?.child.connected) return host;
  const child = fork(HOST_PATH, [], {
    execArgv: ['--disable-warning=ExperimentalWarning'],
    env: { PATH: process.env.PATH ?? '', PERSONA_SPAWN_HOST: '1' },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const current = { child, listeners: new Map<number, Listener>() };
  child.on('message', (event: HostEvent) => current.listeners.get(event.id)?.(event));
  const lost = () => {
    if (host === current) host = null;
    for (const listener of [...current.listeners.values()]) listener({ type: 'lost' });
    current.listeners.clear();
  };
  child.once('error', lost);
  child.once('exit', lost);
  // The host does not keep the server running, nor does its channel while nothing waits on it; the host
  // exits when the channel closes.
  child.unref();
  child.channel?.unref();
  host = current;
  return current;
}

/**
 * Sends one request to the host; `listen` gets its events until it calls `done`. A signal that aborts sends
 * `cancel` and calls `onAbort`.
 */
function call(
  request: WithoutId<Exclude<HostRequest, { type: 'cancel' }>>,
  listen: (event: HostEvent | { type: 'lost' }, done: () => void) => void,
  signal: AbortSignal | undefined,
  onAbort: () => void,
): void {
  const { child, listeners } = spawnHost();
  const id = nextId++;
  const done = () => {
    if (!listeners.delete(id)) return;
    signal?.removeEventListener('abort', abort);
    if (listeners.size === 0) child.channel?.unref();
  };
  const abort = () => {
    if (!listeners.has(id)) return;
    if (child.connected) child.send({ type: 'cancel', id } satisfies HostRequest);
    done();
    onAbort();
  };
  listeners.set(id, (event) => listen(event, done));
  child.channel?.ref();
  if (signal?.aborted) {
    abort();
    return;
  }
  signal?.addEventListener('abort', abort, { once: true });
  child.send({ ...request, id } as HostRequest);
}

/**
 * A fresh Node worker (`modulePath`) sent `message`, bounded by `limits`: its one answer, or why there was
 * none (a bound hit, a crash, the host lost, or `cancelled` by the signal).
 */
export function forkBounded<T>(
  modulePath: string,
  message: unknown,
  options: { limits: WorkerLimits; env?: Record<string, string>; signal?: AbortSignal },
): Promise<{ ok: true; value: T } | { ok: false; reason: WorkerFailure | 'lost' }> {
  return new Promise((resolve) => {
    call(
      { type: 'fork', modulePath, message, limits: options.limits, env: options.env ?? {} },
      (event, done) => {
        if (event.type === 'answer') resolve({ ok: true, value: event.value as T });
        else if (event.type === 'failed' || event.type === 'lost') resolve({ ok: false, reason: event.type === 'lost' ? 'lost' : event.reason });
        else return;
        done();
      },
      options.signal,
      () => resolve({ ok: false, reason: 'cancelled' }),
    );
  });
}

export interface CommandResult {
  /** The exit code; null when a signal ended it (`signal`). */
  code: number | null;
  signal: string | null;
  /** Empty when `onStdout` took it. */
  stdout: string;
  /** The last `stderrKept` characters (default 64 Ki: ffmpeg's reason comes last); all with `stderrKept: null`. */
  stderr: string;
}

/**
 * Runs a command (stdin closed, stdout and stderr as text). Rejects when it cannot start, when the host is
 * lost, and with an AbortError when the signal aborts (the command is killed), as `spawn` with a signal
 * does. `timeoutMs`: killed (SIGKILL) past it.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { signal?: AbortSignal; timeoutMs?: number; onStdout?: (text: string) => void; stderrKept?: number | null } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    call(
      {
        type: 'run',
        command,
        args,
        timeoutMs: options.timeoutMs ?? null,
        streamStdout: options.onStdout !== undefined,
        stderrKept: options.stderrKept === undefined ? 64 * 1024 : options.stderrKept,
      },
      (event, done) => {
        if (event.type === 'stdout') return options.onStdout?.(event.text);
        if (event.type === 'exit') resolve({ code: event.code, signal: event.signal, stdout: event.stdout, stderr: event.stderr });
        else if (event.type === 'error') reject(Object.assign(new Error(`${command}: ${event.message}`), { code: event.code }));
        else if (event.type === 'lost') reject(new Error(`${command}: the process host stopped`));
        else return;
        done();
      },
      options.signal,
      // As spawn with a signal rejects: an AbortError whose cause is the signal's reason.
      () => reject(Object.assign(new Error('The operation was aborted', { cause: options.signal?.reason }), { name: 'AbortError', code: 'ABORT_ERR' })),
    );
  });
}

/** The host's pid while it runs (tests: where the children start from). */
export const spawnHostPid = (): number | null => (host?.child.connected ? (host.child.pid ?? null) : null);
