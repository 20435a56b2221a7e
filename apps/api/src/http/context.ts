import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
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
