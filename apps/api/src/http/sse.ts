import type { ErrorCode, StreamErrorEvent } from '@persona-api/types';
import type { FastifyReply } from 'fastify';
import { STREAMED, type Streamed } from '../contract/handler-types.js';
import type { RequestContext } from './context.js';
import { dependencyFailure } from './dependency-faults.js';

export interface EventStream {
  /** One SSE event: `event: <name>` (when given) and `data: <JSON>`. */
  send(data: unknown, event?: string): void;
  /**
   * Ends the stream with `data: [DONE]` and keeps the transcript for Idempotency-Key retries (which
   * replay the recorded events). Returns STREAMED for the handler to return.
   */
  done(): Promise<Streamed>;
  /**
   * For a stream whose client has gone: nothing more is written and nothing is recorded, so an
   * Idempotency-Key retry runs the request again instead of replaying a truncated stream.
   */
  abandon(): Streamed;
  /** Whether the client has gone away. */
  readonly closed: boolean;
  /**
   * Resolves when the socket's buffer has room again (at once when it has, or when the client is gone).
   * Producers await it before pulling the next piece of work, so a client that reads slowly slows the
   * model stream down instead of growing the server's buffers (backpressure).
   */
  drained(): Promise<void>;
}

/**
 * Gauges for tests and diagnostics: streams whose producer waits for a slow client to read, and the most
 * bytes any stream had buffered in the server when it wrote (bounded by backpressure, not by answer size).
 */
export const sseBackpressure = { waiting: 0, maxBuffered: 0 };

/**
 * An AbortSignal that fires when the client closes the connection before the response is complete
 * (not when it ends normally). For handlers to cancel work nobody will read, e.g. an upstream model call.
 */
export function clientDisconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const raw = reply.raw;
  // Gone already: the response, or the connection under it, was closed before this was asked.
  const gone = raw.destroyed || raw.socket === null || raw.socket.destroyed;
  if (gone && !raw.writableFinished) controller.abort(new Error('The client closed the connection.'));
  else {
    raw.once('close', () => {
      if (!raw.writableFinished) controller.abort(new Error('The client closed the connection.'));
    });
  }
  return controller.signal;
}

/**
 * Switches a handler to Server-Sent Events. The headers already set on the reply (x-request-id,
 * RateLimit-*) are sent with the stream. Fastify's graceful close waits for the stream to end.
 */
export function openEventStream(ctx: RequestContext): EventStream {
  const { reply } = ctx;
  reply.hijack();
  const raw = reply.raw;
  const contentType = 'text/event-stream; charset=utf-8';
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  let closed = raw.destroyed;
  if (!closed) {
    raw.writeHead(200, {
      ...headers,
      'content-type': contentType,
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // Proxies such as nginx must not buffer the stream.
      'x-accel-buffering': 'no',
    });
    // Headers go out now, so a client sees the stream open before the first event.
    raw.flushHeaders();
  }
  raw.on('close', () => {
    closed = true;
  });
  // The transcript an Idempotency-Key retry replays; without a key nothing is kept, so a long stream
  // costs the server only what the socket's buffer holds.
  const recording = Boolean(ctx.request.idempotencyKey);
  let transcript = '';
  return {
    send(data, event) {
      const chunk = `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
      if (recording) transcript += chunk;
      if (closed) return;
      raw.write(chunk);
      if (raw.writableLength > sseBackpressure.maxBuffered) sseBackpressure.maxBuffered = raw.writableLength;
    },
    async done() {
      // Recorded before the end: the end of the response releases a key that has no stored response.
      if (recording) await ctx.recordForReplay({ status: 200, body: `${transcript}data: [DONE]\n\n`, contentType });
      if (!closed) raw.end('data: [DONE]\n\n');
      return STREAMED;
    },
    abandon() {
      if (!raw.destroyed && !raw.writableEnded) raw.end();
      return STREAMED;
    },
    get closed() {
      return closed;
    },
    drained() {
      if (closed || !raw.writableNeedDrain) return Promise.resolve();
      sseBackpressure.waiting++;
      return new Promise<void>((resolve) => {
        const go = () => {
          raw.off('drain', go);
          raw.off('close', go);
          sseBackpressure.waiting--;
          resolve();
        };
        raw.on('drain', go);
        raw.on('close', go);
      });
    },
  };
}

/**
 * What a stream reports when it fails after it began (DECISIONS.md, Dependency faults): an unreachable
 * dependency as service_unavailable, anything else as internal_error naming the request.
 */
export function streamFailure(error: unknown, requestId: string, finishing: string): { code: ErrorCode; message: string } {
  const unavailable = dependencyFailure(error);
  if (unavailable) return { code: unavailable.code, message: unavailable.message };
  return { code: 'internal_error', message: `The server had an error while finishing ${finishing}. Quote request id ${requestId} when reporting it.` };
}

/**
 * The `error` event every stream sends (StreamErrorEvent, DECISIONS.md Streams): OpenAI's flat Responses
 * shape, for a failure the stream's own terminal event does not report; `data: [DONE]` follows.
 */
export function streamErrorEvent(sequenceNumber: number, error: { code: ErrorCode; message: string; param?: string | null }): StreamErrorEvent {
  return { type: 'error', sequence_number: sequenceNumber, code: error.code, message: error.message.slice(0, 2000), param: error.param ?? null };
}
