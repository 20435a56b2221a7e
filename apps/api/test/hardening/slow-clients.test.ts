// Slow and leaving clients (issue 17), against a real listening server (in this process, so its gauges can
// be read) in front of the fake OpenAI-compatible upstream: a client that stops reading a long stream
// stops the model stream instead of growing the server's buffers, 200 idle connections do not keep others
// waiting, and clients that leave streams leave nothing behind (no waiting writer, no upstream connection).
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startFakeUpstream, type FakeUpstream } from '@persona-api/engine/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sseBackpressure } from '../../src/http/sse.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { emptyPostgresDatabase, type EmptyDatabase } from '../support/database.js';

const KEY = `svc_live_${randomBytes(20).toString('hex')}`;
const BODY = JSON.stringify({ model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Tell me everything.', stream: true });
const REQUEST = `POST /api/v1/responses HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`;

const until = async (check: () => boolean, what: string, ms = 30_000) => {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('slow and leaving clients', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'persona-slow-'));
  let database: EmptyDatabase | null = null;
  let fake: FakeUpstream;
  let server: RunningServer;
  let port: number;

  beforeAll(async () => {
    fake = await startFakeUpstream({ apiKey: 'sk-slow-test' });
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BOOTSTRAP_API_KEY: KEY,
      WORKERS: 'off',
      MODEL_BASE_URL: fake.baseUrl,
      MODEL_API_KEY: 'sk-slow-test',
      MODEL_NAME: 'fake-gpt',
      RATE_LIMIT_MULTIPLIER: '100',
    };
    database = await emptyPostgresDatabase('slow');
    if (database) env.DATABASE_URL = database.url;
    server = await startServer(loadConfig(env), pino({ level: 'silent' }));
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.shutdown('test');
    await fake?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('a reader that stops reading pauses the stream at a bounded buffer; reading again finishes it', async () => {
    // 16 000 words of 1 000 characters: about 20 MB of events, far more than the kernel's socket buffers.
    const word = 'x'.repeat(1000);
    fake.enqueue({ content: Array.from({ length: 16_000 }, () => word).join(' ') });
    sseBackpressure.maxBuffered = 0;
    const socket = net.connect(port, '127.0.0.1');
    let received = 0;
    let tail = '';
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-200);
    };
    socket.on('data', onData);
    socket.write(REQUEST);
    await until(() => received > 0, 'the stream to open');
    socket.pause();
    // The server's writer now waits for the socket to drain instead of buffering the rest.
    await until(() => sseBackpressure.waiting === 1, 'the writer to wait for the slow reader');
    const atPause = received;
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Still waiting, nothing more arrived, and what the server holds for this client stayed small.
    expect(sseBackpressure.waiting).toBe(1);
    expect(received).toBe(atPause);
    expect(sseBackpressure.maxBuffered).toBeLessThan(1024 * 1024);
    socket.resume();
    await until(() => tail.includes('data: [DONE]'), 'the end of the stream', 120_000);
    expect(received).toBeGreaterThan(16_000 * 1000);
    expect(tail).toContain('data: [DONE]');
    // (The closing events carry the whole text, as OpenAI's do: they are written at once at the end.)
    await until(() => sseBackpressure.waiting === 0, 'the writer to stop waiting');
    socket.destroy();
  });

  it('200 idle connections do not keep other requests waiting', async () => {
    const idle = await Promise.all(
      Array.from(
        { length: 200 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    // Half of them start a request and never finish its headers.
    for (const socket of idle.slice(0, 100)) socket.write('GET /api/v1/workspaces HTTP/1.1\r\nHost: x\r\n');
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${server.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(20_000) }),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual(Array.from({ length: 20 }, () => 200));
      await Promise.all(answers.map((res) => res.arrayBuffer()));
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });

  it('clients that leave streams leave no writer waiting and no upstream connection open', async () => {
    const before = fake.requests.length;
    fake.setDefault({ content: Array.from({ length: 400 }, (_, i) => `word${i}`).join(' '), tokenDelayMs: 5 });
    try {
      await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const controller = new AbortController();
          const res = await fetch(`${server.url}/api/v1/responses`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: BODY,
            signal: controller.signal,
          });
          const reader = res.body!.getReader();
          // Leave at different points: after the headers, or after a few events.
          for (let read = 0; read < i % 4; read++) await reader.read();
          controller.abort();
          await reader.cancel().catch(() => undefined);
        }),
      );
      const mine = () => fake.requests.slice(before);
      await until(() => mine().length === 30 && mine().every((request) => request.closedEarly || request.finishedAt !== null), 'every upstream request to end');
      await Promise.all(mine().map((request) => request.closed));
      await until(() => sseBackpressure.waiting === 0, 'no writer to wait');
      // Each left early: the server closed its upstream request rather than reading the answer to the end.
      expect(mine().filter((request) => request.closedEarly).length).toBeGreaterThan(20);
      // The server answers normally afterwards.
      expect((await fetch(`${server.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    } finally {
      fake.setDefault(null);
    }
  });
});
