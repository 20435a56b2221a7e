import { STREAMED, type Streamed } from '../contract/handler-types.js';
import type { RequestContext } from './context.js';

export interface EventStream {
  /** One SSE event: `event: <name>` (when given) and `data: <JSON>`. */
  send(data: unknown, event?: string): void;
  /** Ends the stream with `data: [DONE]`. Returns STREAMED for the handler to return. */
  done(): Streamed;
  /** Whether the client has gone away. */
  readonly closed: boolean;
}

/**
 * Switches a handler to Server-Sent Events. The headers already set on the reply (x-request-id,
 * RateLimit-*) are sent with the stream. Fastify's graceful close waits for the stream to end.
 */
export function openEventStream(ctx: RequestContext): EventStream {
  const { reply } = ctx;
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    // Proxies such as nginx must not buffer the stream.
    'x-accel-buffering': 'no',
  });
  let closed = false;
  raw.on('close', () => {
    closed = true;
  });
  return {
    send(data, event) {
      if (closed) return;
      raw.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    },
    done() {
      if (!closed) raw.end('data: [DONE]\n\n');
      return STREAMED;
    },
    get closed() {
      return closed;
    },
  };
}
