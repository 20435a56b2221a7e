// The process that starts every child process of the server (lib/spawner.ts talks to it): document parsers,
// ffmpeg and ffprobe. Starting a process copies the page tables of the process that starts it: from the
// API server (hundreds of MiB resident) one fork() held its event loop 10–13 ms in production on PGlite and
// 35–50 ms under the test runner. From this small process it takes about 1 ms, off the server's thread.
// Only `node:` imports and types: under the test runner Node loads this file itself (type stripping).
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Bounds of a forked Node worker: any of them kills it (SIGKILL). */
export interface WorkerLimits {
  timeMs: number;
  heapMb: number;
  rssBytes: number;
}

export type HostRequest =
  /** A fresh Node worker (`modulePath`, with only PATH and `env`) is sent `message` and answers with one message. */
  | { type: 'fork'; id: number; modulePath: string; env: Record<string, string>; message: unknown; limits: WorkerLimits }
  /** A command; its stdout is collected, or sent on as it comes with `streamStdout`; of its stderr the last `stderrKept` characters (null: all). */
  | { type: 'run'; id: number; command: string; args: string[]; timeoutMs: number | null; streamStdout: boolean; stderrKept: number | null }
  | { type: 'cancel'; id: number };

/** Why a forked worker gave no answer. */
export type WorkerFailure = 'time' | 'memory' | 'heap' | 'crash' | 'cancelled';

export type HostEvent =
  | { id: number; type: 'answer'; value: unknown }
  | { id: number; type: 'failed'; reason: WorkerFailure }
  | { id: number; type: 'stdout'; text: string }
  | { id: number; type: 'exit'; code: number | null; signal: string | null; stdout: string; stderr: string }
  | { id: number; type: 'error'; message: string; code: string | null };

const WATCH_INTERVAL_MS = 20;
const PAGE_SIZE = 4096;

/** The resident memory of a child (Linux /proc); null where it cannot be read. */
async function residentBytes(child: ChildProcess): Promise<number | null> {
  try {
    const statm = await readFile(`/proc/${child.pid}/statm`, 'utf8');
    return Number(statm.split(' ')[1]) * PAGE_SIZE;
  } catch {
    return null;
  }
}

type Report = (event: HostEvent) => void;

/** A bounded worker; the returned function ends it early. */
function forkWorker(request: Extract<HostRequest, { type: 'fork' }>, report: Report): () => void {
  const { id, limits } = request;
  const child = fork(request.modulePath, [], {
    execArgv: [`--max-old-space-size=${limits.heapMb}`, '--max-semi-space-size=16', '--disable-warning=ExperimentalWarning'],
    env: { PATH: process.env.PATH ?? '', ...request.env },
    // Structured clone: bytes go over as a Uint8Array, not as JSON.
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  let settled = false;
  const finish = (event: HostEvent) => {
    if (settled) return;
    settled = true;
    clearInterval(watchdog);
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    report(event);
  };
  const fail = (reason: WorkerFailure) => finish({ id, type: 'failed', reason });
  const timer = setTimeout(() => fail('time'), limits.timeMs);
  const watchdog = setInterval(() => {
    void residentBytes(child).then((rss) => {
      if (rss !== null && rss > limits.rssBytes) fail('memory');
    });
  }, WATCH_INTERVAL_MS);
  child.once('message', (value: unknown) => finish({ id, type: 'answer', value }));
  child.once('error', () => fail('crash'));
  // A V8 heap past its limit aborts the child. 'close', not 'exit': a child sends its answer and exits at
  // once, and under load 'exit' can arrive before that message has been read.
  child.once('close', (code, killedBy) => fail(killedBy === 'SIGABRT' || killedBy === 'SIGTRAP' || code === 134 ? 'heap' : 'crash'));
  child.send(request.message as object);
  return () => fail('cancelled');
}

/** A command; the returned function kills it. */
function runCommand(request: Extract<HostRequest, { type: 'run' }>, report: Report): () => void {
  const { id } = request;
  let settled = false;
  const finish = (event: HostEvent) => {
    if (settled) return;
    settled = true;
    report(event);
  };
  const child = spawn(request.command, request.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(request.timeoutMs ? { timeout: request.timeoutMs } : {}),
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    if (request.streamStdout) report({ id, type: 'stdout', text });
    else stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    if (request.stderrKept !== null && stderr.length > request.stderrKept) stderr = stderr.slice(-request.stderrKept);
  });
  child.once('error', (error: NodeJS.ErrnoException) => finish({ id, type: 'error', message: error.message, code: error.code ?? null }));
  child.once('close', (code, signal) => finish({ id, type: 'exit', code, signal, stdout, stderr }));
  return () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
}

// Started by lib/spawner.ts with an IPC channel: serve its requests; end with it.
if (process.send && process.env.PERSONA_SPAWN_HOST === '1') {
  const running = new Map<number, () => void>();
  const report: Report = (event) => {
    if (event.type !== 'stdout') running.delete(event.id);
    process.send?.(event);
  };
  process.on('message', (request: HostRequest) => {
    if (request.type === 'cancel') return running.get(request.id)?.();
    running.set(request.id, request.type === 'fork' ? forkWorker(request, report) : runCommand(request, report));
  });
  // The server is gone (or closed the channel): its children go with this process.
  process.once('disconnect', () => {
    for (const stop of running.values()) stop();
    process.exit(0);
  });
}
