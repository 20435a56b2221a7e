// Customer documents are parsed off the event loop (SECURITY.md, Documents): one worker thread per
// document with a heap limit, a time limit, and a watchdog on the process's resident memory (inflated
// PDF streams live in ArrayBuffers, which no heap limit counts). Any of them terminates the worker and
// the document fails with the reason. A fresh worker per document (rather than a pool such as Piscina):
// terminating one never takes another customer's parse with it.
import { Worker } from 'node:worker_threads';
import type { DocumentJob, DocumentKind, DocumentResult } from './document-worker.js';

export type { DocumentKind } from './document-worker.js';

/** SECURITY.md, Documents: the bounds of one parse. */
export const PARSE_LIMITS = {
  /** Wall time of one parse, worker start included. */
  timeMs: 20_000,
  /** The worker's V8 heap. */
  heapMb: 256,
  /** Growth of the server's RSS since the parse began that ends it (inflated buffers included). */
  rssGrowthBytes: 384 * 1024 * 1024,
  /** Documents parsed at once; more wait their turn. */
  concurrent: 2,
} as const;

const WATCH_INTERVAL_MS = 20;

// Under the test runner the sources are TypeScript, which Node 24 runs itself (type stripping).
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './document-worker.ts' : './document-worker.js', import.meta.url);

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

/** Parses `bytes` as `kind` in a bounded worker; never throws for a fault of the document. */
export async function parseDocumentBounded(kind: DocumentKind, bytes: Uint8Array, maxChars: number, signal?: AbortSignal): Promise<DocumentResult> {
  const release = await slot();
  try {
    return await new Promise<DocumentResult>((resolve) => {
      const label = kind.toUpperCase();
      const worker = new Worker(WORKER_URL, {
        workerData: { documentWorker: true },
        resourceLimits: { maxOldGenerationSizeMb: PARSE_LIMITS.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
        stdout: true,
        stderr: true,
      });
      const rssAtStart = process.memoryUsage.rss();
      let settled = false;
      const finish = (result: DocumentResult) => {
        if (settled) return;
        settled = true;
        clearInterval(watchdog);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        void worker.terminate();
        resolve(result);
      };
      const stop = (error: string) => finish({ ok: false, error });
      const timer = setTimeout(
        () => stop(`The ${label} document took longer than ${PARSE_LIMITS.timeMs / 1000} s to read; it was stopped.`),
        PARSE_LIMITS.timeMs,
      );
      const watchdog = setInterval(() => {
        if (process.memoryUsage.rss() - rssAtStart > PARSE_LIMITS.rssGrowthBytes) {
          stop(
            `The ${label} document needed more than ${PARSE_LIMITS.rssGrowthBytes / 1024 / 1024} MiB of memory to read (a compression bomb?); it was stopped.`,
          );
        }
      }, WATCH_INTERVAL_MS);
      const onAbort = () => stop(`Reading the ${label} document was cancelled.`);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (result: DocumentResult) => finish(result));
      worker.once('error', (error: Error & { code?: string }) =>
        stop(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `The ${label} document needed more than ${PARSE_LIMITS.heapMb} MiB of heap to read; it was stopped.`
            : `The ${label} document could not be parsed.`,
        ),
      );
      worker.once('exit', () => stop(`The ${label} document could not be parsed.`));
      // A copy of its own to transfer: a small Buffer shares its ArrayBuffer with others.
      const own = new Uint8Array(bytes);
      const job: DocumentJob = { kind, bytes: own, maxChars };
      worker.postMessage(job, [own.buffer]);
    });
  } finally {
    release();
  }
}
