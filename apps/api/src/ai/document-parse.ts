// Customer documents are parsed off the server's process (SECURITY.md, Documents): one child process per
// document with a V8 heap limit, a time limit, and a watchdog on the child's resident memory (inflated PDF
// streams live in ArrayBuffers, which no heap limit counts). Any of them kills the child (SIGKILL) and the
// document fails with the reason. A child rather than a worker thread: killing it is asynchronous and
// frees its memory in the kernel, while terminating a worker that holds hundreds of MiB joins its
// thread on the server's event loop (measured: one 90–130 ms stall per bomb). Fresh per document, so
// killing one never takes another customer's parse with it. Started through the process host
// (lib/spawner.ts), not by the server itself.
import { fileURLToPath } from 'node:url';
import { forkBounded, type WorkerFailure } from '../lib/spawner.js';
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

/** Why a document was not read, from why its worker gave no answer. */
function failureMessage(label: string, reason: WorkerFailure | 'lost'): string {
  switch (reason) {
    case 'time':
      return `The ${label} document took longer than ${PARSE_LIMITS.timeMs / 1000} s to read; it was stopped.`;
    case 'memory':
      return `The ${label} document needed more than ${PARSE_LIMITS.rssBytes / 1024 / 1024} MiB of memory to read (a compression bomb?); it was stopped.`;
    case 'heap':
      return `The ${label} document needed more than ${PARSE_LIMITS.heapMb} MiB of heap to read; it was stopped.`;
    case 'cancelled':
      return `Reading the ${label} document was cancelled.`;
    default:
      return `The ${label} document could not be parsed.`;
  }
}

/** Parses `bytes` as `kind` in a bounded child process; never throws for a fault of the document. */
export async function parseDocumentBounded(kind: DocumentKind, bytes: Uint8Array, maxChars: number, signal?: AbortSignal): Promise<DocumentResult> {
  const release = await slot();
  try {
    const job: DocumentJob = { kind, bytes, maxChars };
    const { timeMs, heapMb, rssBytes } = PARSE_LIMITS;
    const outcome = await forkBounded<DocumentResult>(WORKER_PATH, job, {
      limits: { timeMs, heapMb, rssBytes },
      env: { PERSONA_DOCUMENT_WORKER: '1' },
      signal,
    });
    return outcome.ok ? outcome.value : { ok: false, error: failureMessage(kind.toUpperCase(), outcome.reason) };
  } finally {
    release();
  }
}
