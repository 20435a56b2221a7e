import { SpanKind } from '@opentelemetry/api';
import type { Fetcher } from '../lib/guarded-fetch.js';
import { inSpan } from './tracing.js';

const observed = new WeakSet<Fetcher>();

/** The guarded fetcher with a client span per outgoing fetch (until its headers arrive) inside a traced request or job. */
export function observedFetcher(fetcher: Fetcher): Fetcher {
  if (observed.has(fetcher)) return fetcher;
  const wrapped: Fetcher = {
    get: (target, options) => {
      let host = '';
      try {
        host = new URL(target).host;
      } catch {
        // The fetcher names the bad URL in its own error.
      }
      return inSpan('GET', { 'http.request.method': 'GET', 'server.address': host }, () => fetcher.get(target, options), SpanKind.CLIENT);
    },
  };
  observed.add(wrapped);
  return wrapped;
}
