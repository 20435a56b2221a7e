import type { Engine } from '@persona-api/engine';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './db/client.js';
import type { JobQueue } from './jobs/types.js';
import type { Fetcher } from './lib/guarded-fetch.js';
import type { WebSearchProvider } from './ai/tools/web-search.js';
import type { FileSettings } from './resources/files/settings.js';
import type { MeetingSettings } from './resources/meetings/settings.js';
import type { ObjectStorage } from './storage/types.js';
import type { RateLimiter } from './http/rate-limit.js';

export interface Clock {
  now(): Date;
}

/**
 * Every dependency a handler may use, built once at start (server.ts, or a test's Harness) and reached
 * as `ctx.services`. A new kind of dependency is a field here, not a new RequestContext field,
 * AppOptions field and config plumbing per feature.
 */
export interface Services {
  db: Database;
  /** The model engine serving `service-1` (offline without MODEL_BASE_URL). */
  engine: Engine;
  /** Work that outlives a request, enqueued in the transaction of the row and charge that need it. */
  jobs: JobQueue;
  /** Stored bytes (uploads, documents, recordings). */
  storage: ObjectStorage;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Fetches URLs callers give us, refusing the service's own network (lib/guarded-fetch.ts). */
  fetcher: Fetcher;
  /** Link base, signing keys (loaded once at start) and ffmpeg path of files and uploads. */
  files: FileSettings;
  /** The web search provider (WEB_SEARCH_URL); without one no `web_search` tool is offered. */
  webSearch?: WebSearchProvider | undefined;
  /** Speech-to-text server and meeting-bot provider of meetings (from config.ts); absent: none configured. */
  meetings?: MeetingSettings;
  /** Days a stored response is kept (RESPONSE_RETENTION_DAYS); absent: until it is deleted. */
  responseRetentionDays?: number | undefined;
  /** The request rate limiter (shared across instances with Redis); the console limits sign-ins with it. */
  rateLimiter?: RateLimiter;
  /**
   * RATE_LIMIT_MULTIPLIER (load tests and staging; 1 otherwise): multiplies the API keys' tier limits (REST
   * and /mcp) and the console's requests per client address; never the console's sign-in attempts, whose
   * bound is what stops password guessing.
   */
  rateLimitMultiplier: number;
}

/** Thrown by a service this server was started without; the message says what is missing. */
export class ServiceNotConfiguredError extends Error {
  override name = 'ServiceNotConfiguredError';
}

const notConfigured = (service: string) => () => {
  throw new ServiceNotConfiguredError(`The ${service} service is not configured in this server; pass services.${service} to buildApp.`);
};

/** Background jobs until a queue is given: any use fails loudly instead of dropping work. */
export const jobsNotConfigured: JobQueue = { enqueue: notConfigured('jobs'), stats: notConfigured('jobs') };

/** Object storage until a backend is given: any use fails loudly. */
export const storageNotConfigured: ObjectStorage = {
  // Required by the interface; says nothing, as every method refuses.
  kind: 'local',
  put: notConfigured('storage'),
  get: notConfigured('storage'),
  head: notConfigured('storage'),
  delete: notConfigured('storage'),
  deletePrefix: notConfigured('storage'),
  ping: notConfigured('storage'),
  // Nothing to close: closing the app must not fail because storage was never configured.
  close: async () => {},
};

/** File settings until given: a handler or job that signs or renders fails loudly. */
export const filesNotConfigured: FileSettings = new Proxy({} as FileSettings, {
  get: (_target, property) => (property === 'then' ? undefined : notConfigured('files')()),
});
