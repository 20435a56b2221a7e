// The process that starts the document parsers (document-parse.ts talks to it; SECURITY.md, Documents). It
// exists because starting a process copies the page tables of the process that starts it: from the API
// server (hundreds of MiB resident) one fork() held its event loop 10–13 ms in production and 35–50 ms
// under the test runner, per document. From this small process it takes about 1 ms, off the server's
// thread. It forks one fresh worker per document with the bounds the server sends (heap, time, resident
// memory), kills it on any of them, and reports one result per request. Only `node:` imports and types:
// under the test runner Node loads this file itself (type stripping).
import { type ChildProcess, fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { DocumentJob, DocumentResult } from './document-worker.js';

export interface ParseLimits {
  timeMs: number;
  heapMb: number;
  rssBytes: number;
}

export type HostRequest = { type: 'parse'; id: number; job: DocumentJob; limits: ParseLimits; workerPath: string } | { type: 'cancel'; id: number };

export interface HostReply {
  id: number;
  result: DocumentResult;
}

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

/** One document in a fresh bounded worker; `cancel` ends it early with the given reason. */
function parseInWorker(
  { job, limits, workerPath }: Extract<HostRequest, { type: 'parse' }>,
  report: (result: DocumentResult) => void,
): (reason: string) => void {
  const label = job.kind.toUpperCase();
  const child = fork(workerPath, [], {
    execArgv: [`--max-old-space-size=${limits.heapMb}`, '--max-semi-space-size=16', '--disable-warning=ExperimentalWarning'],
    env: { PATH: process.env.PATH ?? '', PERSONA_DOCUMENT_WORKER: '1' },
    // Structured clone: the bytes go over as a Uint8Array, not as JSON.
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  let settled = false;
  const finish = (result: DocumentResult) => {
    if (settled) return;
    settled = true;
    clearInterval(watchdog);
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    report(result);
  };
  const stop = (error: string) => finish({ ok: false, error });
  const timer = setTimeout(() => stop(`The ${label} document took longer than ${limits.timeMs / 1000} s to read; it was stopped.`), limits.timeMs);
  const watchdog = setInterval(() => {
    void residentBytes(child).then((rss) => {
      if (rss !== null && rss > limits.rssBytes) {
        stop(`The ${label} document needed more than ${limits.rssBytes / 1024 / 1024} MiB of memory to read (a compression bomb?); it was stopped.`);
      }
    });
  }, WATCH_INTERVAL_MS);
  child.once('message', (result: DocumentResult) => finish(result));
  child.once('error', () => stop(`The ${label} document could not be parsed.`));
  // A V8 heap past its limit aborts the child: the heap bound was hit. 'close', not 'exit': a child sends
  // its result and exits at once, and under load 'exit' can arrive before that message has been read.
  child.once('close', (code, killedBy) =>
    stop(
      killedBy === 'SIGABRT' || killedBy === 'SIGTRAP' || code === 134
        ? `The ${label} document needed more than ${limits.heapMb} MiB of heap to read; it was stopped.`
        : `The ${label} document could not be parsed.`,
    ),
  );
  child.send(job);
  return stop;
}

// Started by document-parse.ts with an IPC channel: serve its requests; end with it.
if (process.send && process.env.PERSONA_DOCUMENT_HOST === '1') {
  const running = new Map<number, (reason: string) => void>();
  process.on('message', (request: HostRequest) => {
    if (request.type === 'cancel') return running.get(request.id)?.('cancelled');
    const cancel = parseInWorker(request, (result) => {
      running.delete(request.id);
      process.send?.({ id: request.id, result } satisfies HostReply);
    });
    running.set(request.id, cancel);
  });
  // The server is gone (or closed the channel): its workers go with this process.
  process.once('disconnect', () => {
    for (const cancel of running.values()) cancel('The server stopped.');
    process.exit(0);
  });
}
