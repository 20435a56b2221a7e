// Overhead of POST /responses and its streams: the real server (a child process, OpenAI-compatible
// engine) in front of the fake OpenAI-compatible upstream of @persona-api/engine/testing, against the
// same upstream called directly with the chat-completions request the server would send.
//
//   pnpm build && pnpm --filter @persona-api/bench responses [--duration 10] [--connections 10] [--json]
//
// Measures: non-streamed latency (p50, p99) at 1 connection and throughput at --connections, direct vs.
// through the server; time to the first streamed byte and to the first text delta, direct vs. through;
// streamed tokens/s of one long answer, direct vs. through. PGlite always; PostgreSQL as well when
// BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server (a scratch database, dropped afterwards).
// Only 127.0.0.1 is ever a target, and every phase is bounded in time or count.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { basePersonaSystemPrompt, countTokens } from '@persona-api/engine';
import { startFakeUpstream } from '@persona-api/engine/testing';
import { measureLoad } from '../lib/load.mjs';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { apiDir, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    streams: { type: 'string', default: '50' },
    json: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const STREAMS = Number(args.streams);
const LONG_STREAMS = 5;
const PERSONA = 'persona_saas_cfo';
const INPUT = 'We are pitching an AI forecasting add-on at $18 per seat per month. What would make you say yes?';
const words = (n) => Array.from({ length: n }, (_, i) => `token${i % 50}`).join(' ');
// A typical answer (100 words) for latency and first-byte timings; a long one (2 000 words) for tokens/s.
const SHORT_ANSWER = words(100);
const LONG_ANSWER = words(2_000);

/** An enterprise account with plenty of credits, made with the admin CLI before the server starts. */
async function createAccount(env) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(apiDir, 'dist/admin/cli.js'),
      'accounts',
      'create',
      '--email',
      `bench-${process.pid}@bench.example`,
      '--tier',
      'enterprise',
      '--credits',
      '1000000000',
    ],
    { env: { ...process.env, ...env } },
  );
  const key = /svc_live_[A-Za-z0-9]+/.exec(stdout)?.[0];
  if (!key) throw new Error(`no key in the admin output:\n${stdout}`);
  return key;
}

async function load(name, options, connections) {
  const { requests_per_s, p50_ms, p99_ms, failed } = await measureLoad({ ...options, connections }, { warmup: WARMUP, duration: DURATION });
  if (failed > 0) throw new Error(`${name}: ${failed} failed requests`);
  return { requests_per_s, p50_ms, p99_ms };
}

/**
 * Latency of one request at a time over one kept-alive connection, for DURATION seconds after the
 * warm-up, timed with performance.now() (autocannon rounds to whole milliseconds).
 */
async function sequential(name, { url, headers, body }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${name}: HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  for (const end = performance.now() + WARMUP * 1000; performance.now() < end; ) await once();
  const times = [];
  for (const end = performance.now() + DURATION * 1000; performance.now() < end; ) times.push(await once());
  agent.destroy();
  return { requests: times.length, p50_ms: round(median(times), 2), p99_ms: round(p99(times), 2) };
}

/** One streamed POST: times (from sending) of the first byte, the first text delta and the last byte, and the text. */
function timedStream(url, headers, body, isDelta, deltaText) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByte = null;
    let firstDelta = null;
    let lastDelta = null;
    let buffer = '';
    let text = '';
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const now = performance.now();
        firstByte ??= now;
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .find((line) => line.startsWith('data: '))
            ?.slice(6);
          if (!data || data === '[DONE]') continue;
          const event = JSON.parse(data);
          if (!isDelta(event)) continue;
          firstDelta ??= now;
          lastDelta = now;
          text += deltaText(event);
        }
      });
      res.on('end', () => resolve({ firstByteMs: firstByte - started, firstDeltaMs: firstDelta - started, streamMs: lastDelta - firstDelta, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const p99 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
};
const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

const fake = await startFakeUpstream();
const upstreamUrl = `${fake.baseUrl}/chat/completions`;
// What the server sends upstream for this request: the persona's prompt, then the user's input.
const directBody = (stream) => ({
  model: 'bench-model',
  messages: [
    { role: 'system', content: basePersonaSystemPrompt(PERSONA) },
    { role: 'user', content: INPUT },
  ],
  stream,
  ...(stream ? { stream_options: { include_usage: true } } : {}),
});
const serverBody = (stream) => ({ model: 'service-1', persona_id: PERSONA, input: INPUT, stream });
const isChunkDelta = (event) => typeof event.choices?.[0]?.delta?.content === 'string' && event.choices[0].delta.content.length > 0;
const isResponseDelta = (event) => event.type === 'response.output_text.delta';

async function measureTarget(label, apiUrl, key) {
  const auth = { authorization: `Bearer ${key}` };
  const json = { 'content-type': 'application/json' };
  const results = { target: label };
  fake.setDefault({ content: SHORT_ANSWER });

  log(`  ${label}: non-streamed latency (one request at a time) and throughput (${CONNECTIONS} connections)`);
  const direct = { url: upstreamUrl, method: 'POST', headers: json, body: JSON.stringify(directBody(false)) };
  const through = { url: `${apiUrl}/api/v1/responses`, method: 'POST', headers: { ...json, ...auth }, body: JSON.stringify(serverBody(false)) };
  results.latency_direct = await sequential('direct', direct);
  results.latency_server = await sequential('server', through);
  results.throughput_direct = await load('direct', direct, CONNECTIONS);
  results.throughput_server = await load('server', through, CONNECTIONS);

  log(`  ${label}: time to first byte and first delta, ${STREAMS} sequential streams each`);
  const ttfb = { direct: [], server: [] };
  for (let i = 0; i < STREAMS; i++) {
    const d = await timedStream(upstreamUrl, {}, directBody(true), isChunkDelta, (e) => e.choices[0].delta.content);
    const s = await timedStream(`${apiUrl}/api/v1/responses`, auth, serverBody(true), isResponseDelta, (e) => e.delta);
    ttfb.direct.push(d);
    ttfb.server.push(s);
  }
  const summary = (list, field) => ({ p50_ms: round(median(list.map((r) => r[field]))), p99_ms: round(p99(list.map((r) => r[field]))) });
  results.first_byte_direct = summary(ttfb.direct, 'firstByteMs');
  results.first_byte_server = summary(ttfb.server, 'firstByteMs');
  results.first_delta_direct = summary(ttfb.direct, 'firstDeltaMs');
  results.first_delta_server = summary(ttfb.server, 'firstDeltaMs');

  log(`  ${label}: tokens/s of a ${countTokens(LONG_ANSWER)}-token answer, ${LONG_STREAMS} streams each`);
  fake.setDefault({ content: LONG_ANSWER });
  const rate = { direct: [], server: [] };
  for (let i = 0; i < LONG_STREAMS; i++) {
    const d = await timedStream(upstreamUrl, {}, directBody(true), isChunkDelta, (e) => e.choices[0].delta.content);
    const s = await timedStream(`${apiUrl}/api/v1/responses`, auth, serverBody(true), isResponseDelta, (e) => e.delta);
    if (s.text !== LONG_ANSWER || d.text !== LONG_ANSWER) throw new Error('a long stream lost text');
    rate.direct.push(countTokens(d.text) / (d.streamMs / 1000));
    rate.server.push(countTokens(s.text) / (s.streamMs / 1000));
  }
  results.tokens_per_s_direct = Math.round(median(rate.direct));
  results.tokens_per_s_server = Math.round(median(rate.server));
  return results;
}

const rows = [];
const cleanups = [() => fake.close()];
try {
  log(`Benchmark: POST /responses through the server vs. the fake upstream directly; ${WARMUP} s warm-up + ${DURATION} s per load phase`);
  const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-responses-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const common = { MODEL_BASE_URL: fake.baseUrl, MODEL_NAME: 'bench-model' };

  const targets = [{ label: 'PGlite', env: { DATA_DIR: join(dataDir, 'pglite') } }];
  const pg = await scratchDatabase('persona_bench_responses');
  if (pg) {
    cleanups.push(pg.drop);
    targets.push({ label: 'PostgreSQL', env: { DATABASE_URL: pg.url, DATA_DIR: join(dataDir, 'unused') } });
  }
  for (const target of targets) {
    const env = { ...common, ...target.env };
    const key = await createAccount(env);
    const api = await startApiServer(env);
    try {
      rows.push(await measureTarget(target.label, api.baseUrl, key));
    } finally {
      await stopProcess(api.child);
    }
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

if (args.json) {
  process.stdout.write(`${JSON.stringify({ duration_s: DURATION, connections: CONNECTIONS, streams: STREAMS, rows }, null, 2)}\n`);
} else {
  const out = [];
  out.push('| database | measure | direct to upstream | through the server | overhead |');
  out.push('| --- | --- | ---: | ---: | ---: |');
  for (const row of rows) {
    const pair = (name, d, s, unit = 'ms') =>
      out.push(
        `| ${row.target} | ${name} | ${d} ${unit} | ${s} ${unit} | ${unit === 'ms' ? `+${round(s - d, 2)} ms` : `${Math.round((s / d) * 100)} % of direct`} |`,
      );
    pair('non-streamed p50 (1 at a time)', row.latency_direct.p50_ms, row.latency_server.p50_ms);
    pair('non-streamed p99 (1 at a time)', row.latency_direct.p99_ms, row.latency_server.p99_ms);
    pair(`non-streamed p50 (${CONNECTIONS} conn.)`, row.throughput_direct.p50_ms, row.throughput_server.p50_ms);
    pair(`non-streamed p99 (${CONNECTIONS} conn.)`, row.throughput_direct.p99_ms, row.throughput_server.p99_ms);
    pair(`requests/s (${CONNECTIONS} conn.)`, row.throughput_direct.requests_per_s, row.throughput_server.requests_per_s, 'req/s');
    pair('first byte p50', row.first_byte_direct.p50_ms, row.first_byte_server.p50_ms);
    pair('first byte p99', row.first_byte_direct.p99_ms, row.first_byte_server.p99_ms);
    pair('first text delta p50', row.first_delta_direct.p50_ms, row.first_delta_server.p50_ms);
    pair('first text delta p99', row.first_delta_direct.p99_ms, row.first_delta_server.p99_ms);
    pair('streamed tokens/s', row.tokens_per_s_direct, row.tokens_per_s_server, 'tok/s');
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
