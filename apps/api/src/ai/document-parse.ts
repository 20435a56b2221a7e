// Customer documents are parsed off the server's process (SECURITY.md, Documents): one child process per
// document with a V8 heap limit, a time limit, and a watchdog on the child's resident memory (inflated PDF
// streams live in ArrayBuffers, which no heap limit counts). Any of them kills the child (SIGKILL) and the
// document fails with the reason. A child rather than a worker thread: killing it is asynchronous and
// frees its memory in the kernel, while terminating a worker that holds hundreds of MiB joins its
// thread on the server's event loop (measured: one 90–130 ms stall per bomb). Fresh per document, so
// killing one never takes another customer's parse with it.
import { type ChildProcess, fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { DocumentJob, DocumentKind, DocumentResult } from './document-worker.js';

export type { DocumentKind } from './document-worker.js';

/** SECURITY.md, Documents: the bounds of one parse. */
export const PARSE_LIMITS = {
  /** Wall time of one parse, process start included. */
  timeMs: 20_000,
  /** The child's V8 heap. */
  heapMb: 256,
  /** The child's resident memory (heap, inflated buffers, code) that ends it. */
  rssBytes: 384 * 1024 * 1024,
  /** Documents parsed at once; more wait their turn. */
  concurrent: 2,
} as const;

const WATCH_INTERVAL_MS = 20;
const PAGE_SIZE = 4096;

// Under the test runner the sources are TypeScript, which Node 24 runs itself (type stripping).
const WORKER_PATH = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './document-worker.ts' : './document-worker.js', import.meta.url));

let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= PARSE_LIMITS.concurrent) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  return () => {
    running -= 1;
    waiting.shift()?.();
  };
}

/** The resident memory of a child (Linux /proc); null where it cannot be read. */
async function residentBytes(child: ChildProcess): Promise<number | null> {
  try {
    const statm = await readFile(`/proc/${child.pid}/statm`, 'utf8');
    return Number(statm.split(' ')[1]) * PAGE_SIZE;
  } catch {
    return null;
  }
}

/** Parses `bytes` as `kind` in a bounded child process; never throws for a fault of the document. */
export async function parseDocumentBounded(kind: DocumentKind, bytes: Uint8Array, maxChars: number, signal?: AbortSignal): Promise<DocumentResult> {
  const release = await slot();
  try {
    return await new Promise<DocumentResult>((resolve) => {
      const label = kind.toUpperCase();
      const child = fork(WORKER_PATH, [], {
        execArgv: [`--max-old-space-size=${PARSE_LIMITS.heapMb}`, '--max-semi-space-size=16', '--disable-warning=ExperimentalWarning'],
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
        signal?.removeEventListener('abort', onAbort);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        resolve(result);
      };
      const stop = (error: string) => finish({ ok: false, error });
      const timer = setTimeout(
        () => stop(`The ${label} document took longer than ${PARSE_LIMITS.timeMs / 1000} s to read; it was stopped.`),
        PARSE_LIMITS.timeMs,
      );
      const watchdog = setInterval(() => {
        void residentBytes(child).then((rss) => {
          if (rss !== null && rss > PARSE_LIMITS.rssBytes) {
            stop(`The ${label} document needed more than ${PARSE_LIMITS.rssBytes / 1024 / 1024} MiB of memory to read (a compression bomb?); it was stopped.`);
          }
        });
      }, WATCH_INTERVAL_MS);
      const onAbort = () => stop(`Reading the ${label} document was cancelled.`);
      signal?.addEventListener('abort', onAbort, { once: true });
      child.once('message', (result: DocumentResult) => finish(result));
      child.once('error', () => stop(`The ${label} document could not be parsed.`));
      // A V8 heap past its limit aborts the child: the heap bound was hit. 'close', not 'exit': a child sends
      // its result and exits at once, and under load 'exit' can arrive before that message has been read.
      child.once('close', (code, killedBy) =>
        stop(
          killedBy === 'SIGABRT' || killedBy === 'SIGTRAP' || code === 134
            ? `The ${label} document needed more than ${PARSE_LIMITS.heapMb} MiB of heap to read; it was stopped.`
            : `The ${label} document could not be parsed.`,
        ),
      );
      const job: DocumentJob = { kind, bytes, maxChars };
      child.send(job);
    });
  } finally {
    release();
  }
}
