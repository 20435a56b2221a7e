import type { Engine } from '@persona-api/engine';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { SourceFetchOptions } from '../ai/sources.js';
import type { AuthContext } from '../auth/api-keys.js';
import type { Database } from '../db/client.js';

/** Token counts a handler reports for the request; they show up per key in GET /usage. */
export interface RequestMeter {
  promptTokens: number;
  completionTokens: number;
}

/** What a handler gets besides its typed input. */
export interface RequestContext {
  db: Database;
  /** The caller. Present on every operation that requires a key (all but the signed upload target). */
  auth: AuthContext;
  requestId: string;
  operationId: string;
  log: FastifyBaseLogger;
  now(): Date;
  meter: RequestMeter;
  /** The model engine serving `service-1`: created once at start from MODEL_* (offline without MODEL_BASE_URL). */
  engine: Engine;
  /** How persona-suggestion sources of type url are fetched. */
  sourceFetch: SourceFetchOptions;
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
