import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry, scrapeMetrics } from './metrics.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * `GET /metrics` (Prometheus text format) on its own port, never on the API's: the API's port is public,
 * this one is for the scraper (DECISIONS.md, Observability). With `token`, a scrape must send
 * `Authorization: Bearer <token>` (Prometheus `authorization.credentials`).
 */
export async function startMetricsServer(options: { port: number; host: string; token?: string | undefined }): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    if (options.token) {
      const header = request.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!sameSecret(given, options.token)) {
        response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
        return;
      }
    }
    scrapeMetrics().then(
      (text) => response.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (err: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  // Idle connections outlive a scrape interval (Prometheus reuses its connection every 15–60 s), so a
  // scraper never sends on a socket this side is closing at that moment (ECONNRESET); the headers must
  // still arrive promptly.
  server.keepAliveTimeout = 75_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
