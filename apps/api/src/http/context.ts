import type { Engine } from '@persona-api/engine';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/api-keys.js';
import type { Database } from '../db/client.js';
import type { Services } from '../services.js';

/** Token counts a handler reports for the request; they show up per key in GET /usage. */
export interface RequestMeter {
  promptTokens: number;
  completionTokens: number;
}

/** What a handler gets besides its typed input. */
export interface RequestContext {
  /** Every dependency: database, engine, jobs, storage, clock, logger, fetcher. */
  services: Services;
  /** Shortcuts for the three every handler uses: `services.db`, `services.engine`, `services.clock.now()`. */
  db: Database;
  /** The caller. Present on every operation that requires a key (all but the signed upload target). */
  auth: AuthContext;
  requestId: string;
  operationId: string;
  log: FastifyBaseLogger;
  now(): Date;
  meter: RequestMeter;
  engine: Engine;
  /** Sets a response header (e.g. `budget-alert`) without reaching into the reply. */
  setHeader(name: string, value: string | number): void;
  /**
   * For a handler that writes its own response (a stream): stores what it sent as the response an
   * Idempotency-Key retry replays. Without it such a key is released when the response ends.
   * `openEventStream` does this itself.
   */
  recordForReplay(response: { status: number; body: string; contentType: string }): Promise<void>;
  /** Escape hatches for streaming handlers; return STREAMED after writing to `reply.raw`. */
  request: FastifyRequest;
  reply: FastifyReply;
}
