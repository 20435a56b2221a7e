// Customer documents are parsed off the server's process (SECURITY.md, Documents): one child process per
// document with a V8 heap limit, a time limit, and a watchdog on the child's resident memory (inflated PDF
// streams live in ArrayBuffers, which no heap limit counts). Any of them kills the child (SIGKILL) and the
// document fails with the reason. A child rather than a worker thread: killing it is asynchronous and
// frees its memory in the kernel, while terminating a worker that holds hundreds of MiB joins its
// thread on the server's event loop (measured: one 90–130 ms stall per bomb). Fresh per document, so
// killing one never takes another customer's parse with it. The children are started by a small host
// process (document-host.ts), not by the server: a fork() from the server held its event loop 10–13 ms.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HostReply, HostRequest } from './document-host.js';
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

// Under the test runner the sources are TypeScript, which Node 24 runs itself (type stripping).
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const WORKER_PATH = fileURLToPath(new URL(`./document-worker${extension}`, import.meta.url));
const HOST_PATH = fileURLToPath(new URL(`./document-host${extension}`, import.meta.url));

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

/** The host process and the parses waiting on it; started on first use, again after it has died. */
let host: { child: ChildProcess; pending: Map<number, (result: DocumentResult) => void> } | null = null;
let nextId = 0;

function documentHost(): NonNullable<typeof host> {
  if (host && host.child.connected) return host;
  const child = fork(HOST_PATH, [], {
    execArgv: ['--disable-warning=ExperimentalWarning'],
    env: { PATH: process.env.PATH ?? '', PERSONA_DOCUMENT_HOST: '1' },
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const current = { child, pending: new Map<number, (result: DocumentResult) => void>() };
  child.on('message', ({ id, result }: HostReply) => current.pending.get(id)?.(result));
  const lost = () => {
    if (host === current) host = null;
    for (const resolve of current.pending.values()) resolve({ ok: false, error: 'The document could not be parsed.' });
    current.pending.clear();
  };
  child.once('error', lost);
  child.once('exit', lost);
  // The host does not keep the server running, nor does its channel while no parse waits on it; the host
  // exits when the channel closes.
  child.unref();
  channelOf(child)?.unref();
  host = current;
  return current;
}

const channelOf = (child: ChildProcess) => (child as unknown as { channel?: { ref(): void; unref(): void } }).channel;

/** Parses `bytes` as `kind` in a bounded child process; never throws for a fault of the document. */
export async function parseDocumentBounded(kind: DocumentKind, bytes: Uint8Array, maxChars: number, signal?: AbortSignal): Promise<DocumentResult> {
  const release = await slot();
  try {
    return await new Promise<DocumentResult>((resolve) => {
      const label = kind.toUpperCase();
      const { child, pending } = documentHost();
      const id = nextId++;
      const finish = (result: DocumentResult) => {
        if (!pending.delete(id)) return;
        if (pending.size === 0) channelOf(child)?.unref();
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () => {
        if (child.connected) child.send({ type: 'cancel', id } satisfies HostRequest);
        finish({ ok: false, error: `Reading the ${label} document was cancelled.` });
      };
      pending.set(id, finish);
      channelOf(child)?.ref();
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const job: DocumentJob = { kind, bytes, maxChars };
      const { timeMs, heapMb, rssBytes } = PARSE_LIMITS;
      child.send({ type: 'parse', id, job, limits: { timeMs, heapMb, rssBytes }, workerPath: WORKER_PATH } satisfies HostRequest);
    });
  } finally {
    release();
  }
}

/** The host process's pid while it runs (tests: where the parsers start from). */
export const documentHostPid = (): number | null => (host?.child.connected ? (host.child.pid ?? null) : null);
