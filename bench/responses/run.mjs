// Overhead of POST /responses and its streams: the real server (a child process, OpenAI-compatible
// engine) in front of the fake OpenAI-compatible upstream of @persona-api/engine/testing, against the
// same upstream called directly with the chat-completions request the server would send.
//
//   pnpm build && pnpm --filter @persona-api/bench responses [--duration 10] [--connections 10] [--json]
//
// Measures: non-streamed latency (p50, p90, p99) at 1 connection and throughput at --connections, direct
// vs. through the server; time to the first streamed byte, the first text delta and the last byte, direct
// vs. through; streamed tokens/s of one long answer, direct vs. through. In the same run, Portkey's
// open-source gateway (@portkey-ai/gateway, a child process) in front of the same fake upstream, with the
// same chat-completions request, so both gateways' overheads print side by side (--no-portkey skips it). PGlite always; PostgreSQL as well when
// BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server (a scratch database, dropped afterwards).
// Only 127.0.0.1 is ever a target, and every phase is bounded in time or count.
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { basePersonaSystemPrompt, countTokens } from '@persona-api/engine';
import { startFakeUpstream } from '@persona-api/engine/testing';
import { measureLoad } from '../lib/load.mjs';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { createBenchAccount, freePort, startApiServer, startProcess, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    streams: { type: 'string', default: '50' },
    'no-portkey': { type: 'boolean', default: false },
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
  return { requests: times.length, p50_ms: round(median(times), 2), p90_ms: round(p90(times), 2), p99_ms: round(p99(times), 2) };
}

/** One streamed POST: times (from sending) of the first byte, the first text delta and the last byte, and the text. */
function timedStream(url, headers, body, isDelta, deltaText) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByte = null;
    let firstDelta = null;
    let lastDelta = null;
    let lastByte = null;
    let buffer = '';
    let text = '';
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const now = performance.now();
        firstByte ??= now;
        lastByte = now;
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
      res.on('end', () =>
        resolve({
          firstByteMs: firstByte - started,
          firstDeltaMs: firstDelta - started,
          lastByteMs: lastByte - started,
          streamMs: lastDelta - firstDelta,
          text,
        }),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const percentile = (fraction) => (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)];
};
const p90 = percentile(0.9);
const p99 = percentile(0.99);
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
const summary = (list, field) => {
  const values = list.map((r) => r[field]);
  return { p50_ms: round(median(values)), p90_ms: round(p90(values)), p99_ms: round(p99(values)) };
};

const portkeyScript = fileURLToPath(new URL('../node_modules/@portkey-ai/gateway/build/start-server.js', import.meta.url));

/**
 * Portkey's open-source gateway as published (`start-server.js --headless`) in front of the same fake
 * upstream, routed by its headers to the upstream's OpenAI-compatible API. It listens on every interface
 * (it has no host option); the bench only ever sends to 127.0.0.1.
 */
async function measurePortkey() {
  const port = await freePort();
  const child = await startProcess('Portkey gateway', process.execPath, [portkeyScript, `--port=${port}`, '--headless'], {}, /Ready for connections/);
  try {
    const url = `http://127.0.0.1:${port}/v1/chat/completions`;
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer sk-bench',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': fake.baseUrl,
    };
    fake.setDefault({ content: SHORT_ANSWER });
    const results = { target: 'Portkey' };
    log(`  Portkey: non-streamed latency (one request at a time) and throughput (${CONNECTIONS} connections)`);
    const direct = { url: upstreamUrl, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(directBody(false)) };
    const through = { url, method: 'POST', headers, body: JSON.stringify(directBody(false)) };
    results.latency_direct = await sequential('direct', direct);
    results.latency_server = await sequential('Portkey', through);
    results.throughput_direct = await load('direct', direct, CONNECTIONS);
    results.throughput_server = await load('Portkey', through, CONNECTIONS);
    log(`  Portkey: first and last byte, ${STREAMS} sequential streams each`);
    const streams = { direct: [], server: [] };
    for (let i = 0; i < STREAMS; i++) {
      streams.direct.push(await timedStream(upstreamUrl, {}, directBody(true), isChunkDelta, (e) => e.choices[0].delta.content));
      const s = await timedStream(url, headers, directBody(true), isChunkDelta, (e) => e.choices[0].delta.content);
      if (s.text !== SHORT_ANSWER) throw new Error('Portkey: a stream lost text');
      streams.server.push(s);
    }
    for (const [name, field] of [
      ['first_byte', 'firstByteMs'],
      ['first_delta', 'firstDeltaMs'],
      ['last_byte', 'lastByteMs'],
    ]) {
      results[`${name}_direct`] = summary(streams.direct, field);
      results[`${name}_server`] = summary(streams.server, field);
    }
    return results;
  } finally {
    await stopProcess(child);
  }
}

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
  results.first_byte_direct = summary(ttfb.direct, 'firstByteMs');
  results.first_byte_server = summary(ttfb.server, 'firstByteMs');
  results.first_delta_direct = summary(ttfb.direct, 'firstDeltaMs');
  results.first_delta_server = summary(ttfb.server, 'firstDeltaMs');
  results.last_byte_direct = summary(ttfb.direct, 'lastByteMs');
  results.last_byte_server = summary(ttfb.server, 'lastByteMs');

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
let portkey = null;
const cleanups = [() => fake.close()];
try {
  log(`Benchmark: POST /responses through the server vs. the fake upstream directly; ${WARMUP} s warm-up + ${DURATION} s per load phase`);
  if (!args['no-portkey']) portkey = await measurePortkey();
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
    const key = await createBenchAccount(env);
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
  process.stdout.write(`${JSON.stringify({ duration_s: DURATION, connections: CONNECTIONS, streams: STREAMS, portkey, rows }, null, 2)}\n`);
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
    pair('non-streamed p90 (1 at a time)', row.latency_direct.p90_ms, row.latency_server.p90_ms);
    pair('non-streamed p99 (1 at a time)', row.latency_direct.p99_ms, row.latency_server.p99_ms);
    pair(`non-streamed p50 (${CONNECTIONS} conn.)`, row.throughput_direct.p50_ms, row.throughput_server.p50_ms);
    pair(`non-streamed p99 (${CONNECTIONS} conn.)`, row.throughput_direct.p99_ms, row.throughput_server.p99_ms);
    pair(`requests/s (${CONNECTIONS} conn.)`, row.throughput_direct.requests_per_s, row.throughput_server.requests_per_s, 'req/s');
    pair('first byte p50', row.first_byte_direct.p50_ms, row.first_byte_server.p50_ms);
    pair('first byte p99', row.first_byte_direct.p99_ms, row.first_byte_server.p99_ms);
    pair('first text delta p50', row.first_delta_direct.p50_ms, row.first_delta_server.p50_ms);
    pair('first text delta p99', row.first_delta_direct.p99_ms, row.first_delta_server.p99_ms);
    pair('last byte p50', row.last_byte_direct.p50_ms, row.last_byte_server.p50_ms);
    pair('streamed tokens/s', row.tokens_per_s_direct, row.tokens_per_s_server, 'tok/s');
  }
  if (portkey) {
    // Each gateway's overhead is against the direct calls of its own phase (interleaved or back to back).
    const gateways = [portkey, ...rows];
    const names = gateways.map((row) => (row === portkey ? 'Portkey 1.15.2' : `persona-api, ${row.target}`));
    out.push('', `| measure | direct (Portkey phase) | ${names.join(' | ')} |`, `| --- | ---: |${' ---: |'.repeat(gateways.length)}`);
    const line = (name, pick) =>
      out.push(
        `| ${name} | ${pick(portkey, 'direct')} ms | ${gateways.map((row) => `${pick(row, 'server')} ms (+${round(pick(row, 'server') - pick(row, 'direct'), 2)})`).join(' | ')} |`,
      );
    line('non-streamed p50 (1 at a time)', (row, side) => row[`latency_${side}`].p50_ms);
    line('non-streamed p90 (1 at a time)', (row, side) => row[`latency_${side}`].p90_ms);
    line(`non-streamed p50 (${CONNECTIONS} conn.)`, (row, side) => row[`throughput_${side}`].p50_ms);
    out.push(
      `| requests/s (${CONNECTIONS} conn.) | ${portkey.throughput_direct.requests_per_s} | ${gateways.map((row) => row.throughput_server.requests_per_s).join(' | ')} |`,
    );
    line('streamed first byte p50', (row, side) => row[`first_byte_${side}`].p50_ms);
    line('streamed first byte p90', (row, side) => row[`first_byte_${side}`].p90_ms);
    line('streamed last byte p50', (row, side) => row[`last_byte_${side}`].p50_ms);
    line('streamed last byte p90', (row, side) => row[`last_byte_${side}`].p90_ms);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
