import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../src/contract/handler-types.js';
import { openEventStream } from '../src/http/sse.js';
import { Harness, type Tenant } from './support/harness.js';
import { openTestDatabase } from './support/database.js';

// X-request-id on every response and log line, /healthz and /readyz outside
// /api/v1, graceful shutdown that finishes in-flight requests and open streams.

describe('request ids and logs', () => {
  const lines: Record<string, unknown>[] = [];
  let h: Harness;
  let t: Tenant;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    h = await Harness.create({ logger: pino({ level: 'info' }, sink) });
    t = await h.tenant();
  });
  afterAll(() => h.close());

  it('puts x-request-id on every response, errors and unknown routes included', async () => {
    const responses = [
      await h.get('/workspaces', t.key),
      await h.get('/workspaces'),
      await h.get('/nowhere', t.key),
      await h.request('DELETE', '/usage', { key: t.key }),
      await h.get('/models', t.key),
      await h.get('/healthz'),
    ];
    const ids = responses.map((res) => res.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const echoed = await h.get('/workspaces', t.key, { 'x-request-id': 'edge-7f3a:9' });
    expect(echoed.headers['x-request-id']).toBe('edge-7f3a:9');
    const replaced = await h.get('/workspaces', t.key, { 'x-request-id': 'bad id with spaces' });
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
  });

  it('writes the request id on every log line of a request, and never the key', async () => {
    lines.length = 0;
    const res = await h.get('/workspaces/ws_absent', t.key);
    const id = res.headers['x-request-id'];
    const ofRequest = lines.filter((line) => line.request_id === id);
    // The 404 itself, then the one line per request (DECISIONS.md, Observability) naming the operation.
    expect(ofRequest.length).toBeGreaterThanOrEqual(2);
    expect(ofRequest.some((line) => line.code === 'resource_not_found')).toBe(true);
    expect(ofRequest.at(-1)).toMatchObject({ operation_id: 'getWorkspace', method: 'GET', status: 404, account_id: expect.any(String) });
    expect(JSON.stringify(lines)).not.toContain(t.key);
  });
});

describe('health', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.create();
  });
  afterAll(() => h.close());

  it('answers /healthz and /readyz without a key, outside /api/v1', async () => {
    expect((await h.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await h.get('/readyz')).body).toEqual({ status: 'ok' });
    expect((await h.get('/api/v1/healthz')).status).toBe(404);
  });

  it('reports not ready while draining', async () => {
    h.app.markShuttingDown();
    const res = await h.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'shutting_down' });
  });
});

describe('graceful shutdown', () => {
  function gate() {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  }

  it('finishes in-flight requests and open streams, and takes no new connections', async () => {
    const slowStarted = gate();
    const slowRelease = gate();
    const streamStarted = gate();
    const streamRelease = gate();
    const slowUsage: Handler<'getUsage'> = async () => {
      slowStarted.open();
      await slowRelease.opened;
      throw Object.assign(new Error('done waiting'), { statusCode: 500 });
    };
    const streamingResponse: Handler<'createResponse'> = async (_input, ctx) => {
      const stream = openEventStream(ctx);
      stream.send({ type: 'response.created' }, 'response.created');
      streamStarted.open();
      await streamRelease.opened;
      stream.send({ type: 'response.output_text.delta', delta: 'still here' }, 'response.output_text.delta');
      return stream.done();
    };
    const database = await openTestDatabase();
    const h = await Harness.create({ database, handlers: { getUsage: slowUsage, createResponse: streamingResponse } });
    const t = await h.tenant();
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;

    const call = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, method, path, agent: false, headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    try {
      const slow = call('GET', '/api/v1/usage');
      const stream = call('POST', '/api/v1/responses', JSON.stringify({ model: 'service-1', persona_id: 'persona_x', input: 'Hi' }));
      await slowStarted.opened;
      await streamStarted.opened;

      let closed = false;
      const closing = h.app.close().then(() => {
        closed = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(call('GET', '/api/v1/workspaces')).rejects.toThrow(/ECONNREFUSED/);
      expect(closed).toBe(false);

      slowRelease.open();
      const slowResult = await slow;
      expect(slowResult.status).toBe(500);
      expect(JSON.parse(slowResult.text).error.code).toBe('internal_error');
      expect(closed).toBe(false); // the stream is still open

      streamRelease.open();
      const streamResult = await stream;
      expect(streamResult.status).toBe(200);
      expect(streamResult.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(streamResult.headers['x-request-id']).toMatch(/^req_/);
      expect(streamResult.headers['ratelimit-limit']).toBe('600');
      expect(streamResult.text).toContain('event: response.created');
      expect(streamResult.text).toContain('still here');
      expect(streamResult.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      await closing;
      expect(closed).toBe(true);
    } finally {
      await h.close();
      await database.close();
    }
  });
});
