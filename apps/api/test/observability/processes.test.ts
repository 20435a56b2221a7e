import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { driverName, emptyPostgresDatabase } from '../support/database.js';
import { run, startServerProcess } from '../support/processes.js';
import { sample } from './scrape.js';

// The built server and the worker as processes, configured only by their environment: METRICS_PORT
// serves the metrics, OTEL_* turn tracing on, and the logs carry the trace.

const KEY = `svc_live_${'O'.repeat(12)}bservability${'0'.repeat(12)}`;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const freePort = async () => {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

async function otlpReceiver(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

describe('pnpm start and pnpm worker with observability configured', () => {
  it('the server exports metrics on METRICS_PORT, traces over OTLP and logs the trace id', { timeout: 180_000 }, async () => {
    const postgres = driverName() === 'postgres' ? await emptyPostgresDatabase('observability') : null;
    const dataDir = mkdtempSync(join(tmpdir(), 'persona-observability-'));
    dirs.push(dataDir);
    const receiver = await otlpReceiver();
    const metricsPort = await freePort();
    const server = await startServerProcess({
      ...(postgres ? { DATABASE_URL: postgres.url } : {}),
      DATA_DIR: dataDir,
      BOOTSTRAP_API_KEY: KEY,
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_NODE_RESOURCE_DETECTORS: 'none',
    });
    try {
      const traceId = `${'a'.repeat(31)}1`;
      const listed = await fetch(`${server.api}/workspaces`, {
        headers: { authorization: `Bearer ${KEY}`, traceparent: `00-${traceId}-${'b'.repeat(16)}-01` },
      });
      expect(listed.status).toBe(200);
      expect(listed.headers.get('traceresponse')).toMatch(new RegExp(`^00-${traceId}-`));
      // The API port has no /metrics; the metrics port has.
      expect((await fetch(`${server.origin}/metrics`)).status).toBe(404);
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(sample(text, 'persona_http_requests_total', { operation: 'listWorkspaces', method: 'GET', status_class: '2xx' })).toBe(1);
      await expect.poll(() => receiver.bodies.join('\n'), { timeout: 10_000 }).toContain(traceId);
      // The request's span can come in a later export than its statements' spans (they end first): wait for it too.
      await expect.poll(() => receiver.bodies.join('\n'), { timeout: 10_000 }).toContain('"listWorkspaces"');
      await expect.poll(() => server.logTail(), { timeout: 5_000 }).toContain(`"trace_id":"${traceId}"`);
      // The development key is printed once on purpose, outside the JSON log; no log line carries it.
      const logLines = server
        .logTail()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(3);
      expect(logLines.join('\n')).not.toContain(KEY);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      receiver.server.close();
      await postgres?.drop();
    }
  });

  it('the worker exports the same metric names on its own METRICS_PORT (PostgreSQL only)', { timeout: 120_000 }, async () => {
    if (driverName() !== 'postgres') return;
    const postgres = await emptyPostgresDatabase('observability_worker');
    if (!postgres) return;
    const metricsPort = await freePort();
    // The worker migrates nothing: a server run first leaves the database ready, as in production.
    const dataDir = mkdtempSync(join(tmpdir(), 'persona-observability-'));
    dirs.push(dataDir);
    const server = await startServerProcess({ DATABASE_URL: postgres.url, DATA_DIR: dataDir, BOOTSTRAP_API_KEY: KEY, WORKERS: 'off' });
    const worker = run('src/worker.ts', [], { DATABASE_URL: postgres.url, DATA_DIR: dataDir, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' });
    try {
      await expect
        .poll(
          async () =>
            (
              await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
                (r) => r.text(),
                () => '',
              )
            ).includes('# TYPE persona_job_queue_depth gauge'),
          {
            timeout: 60_000,
            interval: 500,
          },
        )
        .toBe(true);
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      for (const name of [
        'persona_http_requests_total',
        'persona_model_calls_total',
        'persona_jobs_started_total',
        'persona_job_oldest_waiting_seconds',
        'persona_db_statement_duration_seconds',
      ]) {
        expect(text).toContain(`# TYPE ${name} `);
      }
      expect(text).toMatch(/persona_job_queue_depth\{kind="[a-z.-]+",state="queued"\} \d+/);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      server.child.kill('SIGTERM');
      await server.exited;
      await postgres.drop();
    }
  });
});
