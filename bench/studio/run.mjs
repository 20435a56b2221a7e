// Content studio timings:
//   1. a brand voice learned from 10 web pages of 20 kB each on the offline engine: the reading (guarded
//      fetch + Readability) and the engine's measured voice in-process, then end to end through the server
//      (POST /brand-voices → job → GET until `completed`);
//   2. generations over the fake OpenAI-compatible upstream: time to the first text delta and total time
//      of POST /generations, beside POST /responses and the same request sent to the upstream directly.
//
//   pnpm build && pnpm --filter @persona-api/bench studio [--streams 30] [--requests 50] [--json]
//
// PGlite always; PostgreSQL as well when BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server (a
// scratch database, dropped afterwards). Only 127.0.0.1 is ever a target; every phase is bounded.
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  basePersonaSystemPrompt,
  brandVoice,
  contentGeneration,
  createOfflineEngine,
  enginePersonaFromBase,
  generationApps,
  generationAppTemplate,
  getBasePersona,
  renderTemplate,
} from '@persona-api/engine';
import { startFakeUpstream } from '@persona-api/engine/testing';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { apiDir, createBenchAccount, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '30' },
    requests: { type: 'string', default: '50' },
    voices: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const STREAMS = Number(args.streams);
const REQUESTS = Number(args.requests);
const VOICES = Number(args.voices);
const PERSONA = 'persona_saas_cfo';
const SOURCES = 10;
const SOURCE_BYTES = 20_000;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p99 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
};
const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const summary = (values) => ({ p50_ms: round(median(values)), p99_ms: round(p99(values)) });

// --- 1. Brand voice sources: 10 distinct article pages of ~20 kB, with navigation and footer to drop.
const VOCABULARY = 'crunchy flavour roast harvest ritual morning brew origin farmer season craft batch aroma bold smooth bright citrus cocoa balance'.split(
  ' ',
);
function page(index) {
  const sentences = [];
  let size = 0;
  for (let i = 0; size < SOURCE_BYTES - 600; i++) {
    const words = Array.from({ length: 8 + ((i * 7 + index) % 14) }, (_, w) => VOCABULARY[(i * 3 + w * 5 + index) % VOCABULARY.length]);
    const sentence = `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}${i % 9 === 0 ? '?' : i % 13 === 0 ? '!' : '.'} `;
    sentences.push(sentence);
    size += sentence.length + 7;
  }
  const paragraphs = [];
  for (let i = 0; i < sentences.length; i += 5) paragraphs.push(`<p>${sentences.slice(i, i + 5).join('')}</p>`);
  return `<!doctype html><html><head><title>Journal ${index}</title></head><body><nav><a href="/">Home</a> Shop Cookies</nav><article><h1>Journal ${index}</h1>${paragraphs.join('')}</article><footer>© Example</footer></body></html>`;
}
const PAGES = Array.from({ length: SOURCES }, (_, index) => page(index));

async function startPages() {
  const server = createServer((req, res) => {
    const index = Number(/\/page\/(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    if (!PAGES[index]) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGES[index]);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

async function voiceInProcess() {
  const { htmlText } = await import(pathToFileURL(join(apiDir, 'dist/ai/source-text.js')).href);
  const engine = createOfflineEngine();
  const reading = [];
  const learning = [];
  let texts = [];
  for (let run = 0; run < 5; run++) {
    let started = performance.now();
    texts = PAGES.map((html, index) => ({ name: `Journal ${index}`, text: htmlText(html).text }));
    reading.push(performance.now() - started);
    started = performance.now();
    await engine.run(brandVoice, { label: 'Bench roastery', usage_context: 'Newsletters and product pages.', sources: texts });
    learning.push(performance.now() - started);
  }
  return { reading: summary(reading), learning: summary(learning), characters: texts.reduce((sum, t) => sum + t.text.length, 0) };
}

// --- Server helpers
async function api(baseUrl, key, method, path, body) {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function voiceThroughServer(baseUrl, key, pagesBase) {
  const workspace = (await api(baseUrl, key, 'GET', '/workspaces')).data[0].id;
  const times = [];
  for (let run = 0; run < VOICES; run++) {
    const started = performance.now();
    const voice = await api(baseUrl, key, 'POST', '/brand-voices', {
      label: `Bench voice ${run}`,
      usage_context: 'Newsletters and product pages of a roastery.',
      workspace_id: workspace,
      sources: { urls: PAGES.map((_, index) => ({ url: `${pagesBase}/page/${index}` })) },
    });
    for (;;) {
      const read = await api(baseUrl, key, 'GET', `/brand-voices/${voice.id}`);
      if (read.status === 'completed') break;
      if (read.status === 'failed') throw new Error(`voice failed: ${read.error}`);
      if (performance.now() - started > 120_000) throw new Error('voice not completed in 120 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    times.push(performance.now() - started);
  }
  return summary(times);
}

// --- 2. Generations over the fake upstream
const ANSWER = Array.from({ length: 100 }, (_, i) => `token${i % 50}`).join(' ');
const INPUT = 'We are pitching an AI forecasting add-on at $18 per seat per month. What would make you say yes?';
const APP = generationApps.find((app) => app.id === 'app_linkedin_post');
const VALUES = { topic: INPUT, tone: 'professional', post_length: 'medium', include_hashtags: true };
function generationUpstreamBody(stream) {
  const request = contentGeneration.request({
    app: APP,
    prompt: renderTemplate(generationAppTemplate(APP.id), VALUES),
    values: VALUES,
    persona: enginePersonaFromBase(getBasePersona(PERSONA)),
    voice: null,
  });
  return {
    model: 'bench-model',
    messages: [{ role: 'system', content: request.instructions }, ...request.messages],
    max_completion_tokens: request.max_output_tokens,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}
const responsesUpstreamBody = (stream) => ({
  model: 'bench-model',
  messages: [
    { role: 'system', content: basePersonaSystemPrompt(PERSONA) },
    { role: 'user', content: INPUT },
  ],
  stream,
  ...(stream ? { stream_options: { include_usage: true } } : {}),
});

/** One POST; resolves with the times (from sending) of the first byte, first text delta and end. */
function timed(url, headers, body, isDelta) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstDelta = null;
    let buffer = '';
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (firstDelta !== null) return;
        buffer += chunk;
        for (const line of buffer.split('\n')) {
          if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
          try {
            if (isDelta(JSON.parse(line.slice(6)))) firstDelta ??= performance.now();
          } catch {}
        }
      });
      res.on('end', () => resolve({ firstDeltaMs: firstDelta === null ? null : firstDelta - started, totalMs: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const isChunkDelta = (event) => typeof event.choices?.[0]?.delta?.content === 'string' && event.choices[0].delta.content.length > 0;
const isDeltaType = (type) => (event) => event.type === type;

async function generationTimings(baseUrl, key, upstreamUrl) {
  const auth = { authorization: `Bearer ${key}` };
  const cases = {
    generation_direct: { url: upstreamUrl, headers: {}, body: generationUpstreamBody, isDelta: isChunkDelta },
    generation_server: {
      url: `${baseUrl}/api/v1/generations`,
      headers: auth,
      body: (stream) => ({ app_id: APP.id, input_data: VALUES, persona_id: PERSONA, stream }),
      isDelta: isDeltaType('generation.output_text.delta'),
    },
    responses_direct: { url: upstreamUrl, headers: {}, body: responsesUpstreamBody, isDelta: isChunkDelta },
    responses_server: {
      url: `${baseUrl}/api/v1/responses`,
      headers: auth,
      body: (stream) => ({ model: 'service-1', persona_id: PERSONA, input: INPUT, stream }),
      isDelta: isDeltaType('response.output_text.delta'),
    },
  };
  // Interleaved, one sample of each case in turn, so the machine's load falls on all four alike.
  const entries = Object.entries(cases);
  for (let i = 0; i < 5; i++) for (const [, c] of entries) await timed(c.url, c.headers, c.body(true), c.isDelta); // warm-up
  const streamed = Object.fromEntries(entries.map(([name]) => [name, []]));
  const plain = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let i = 0; i < STREAMS; i++) for (const [name, c] of entries) streamed[name].push(await timed(c.url, c.headers, c.body(true), c.isDelta));
  for (let i = 0; i < REQUESTS; i++) for (const [name, c] of entries) plain[name].push(await timed(c.url, c.headers, c.body(false), () => false));
  const out = {};
  for (const [name] of entries) {
    out[name] = {
      first_delta: summary(streamed[name].map((r) => r.firstDeltaMs)),
      stream_total: summary(streamed[name].map((r) => r.totalMs)),
      total: summary(plain[name].map((r) => r.totalMs)),
    };
  }
  return out;
}

const rows = [];
const cleanups = [];
let inProcess;
try {
  const fake = await startFakeUpstream();
  cleanups.push(() => fake.close());
  const pages = await startPages();
  cleanups.push(() => new Promise((resolve) => pages.server.close(resolve)));
  const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-studio-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

  log(`Brand voice: ${SOURCES} pages of ${SOURCE_BYTES / 1000} kB, in-process (5 runs)`);
  inProcess = await voiceInProcess();

  const targets = [{ label: 'PGlite', env: (name) => ({ DATA_DIR: join(dataDir, name) }) }];
  const pg = await scratchDatabase('persona_bench_studio');
  if (pg) {
    cleanups.push(pg.drop);
    targets.push({ label: 'PostgreSQL', env: (name) => ({ DATABASE_URL: pg.url, DATA_DIR: join(dataDir, `unused-${name}`) }) });
  }
  for (const target of targets) {
    const row = { target: target.label };
    log(`${target.label}: brand voice end to end (offline engine), ${VOICES} voices`);
    // One database for both servers: the offline one starts first and loads the bundled news, so the one
    // on the fake upstream (whose echo is no news classification) finds them there at its start.
    const database = target.env('db');
    const key = await createBenchAccount(database);
    let server = await startApiServer({ ...database, SOURCE_FETCH_ALLOW_PRIVATE: 'true' });
    try {
      row.voice = await voiceThroughServer(server.baseUrl, key, pages.base);
    } finally {
      await stopProcess(server.child);
    }
    log(`${target.label}: generations and responses over the fake upstream (${STREAMS} streams, ${REQUESTS} requests each)`);
    fake.setDefault({ content: ANSWER });
    server = await startApiServer({ ...database, MODEL_BASE_URL: fake.baseUrl, MODEL_NAME: 'bench-model' });
    try {
      row.timings = await generationTimings(server.baseUrl, key, `${fake.baseUrl}/chat/completions`);
    } finally {
      await stopProcess(server.child);
    }
    rows.push(row);
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

if (args.json) {
  process.stdout.write(`${JSON.stringify({ in_process: inProcess, rows }, null, 2)}\n`);
} else {
  const out = [
    `In-process, offline engine, ${SOURCES} pages of ${SOURCE_BYTES / 1000} kB (${inProcess.characters} characters of text): reading (Readability) p50 ${inProcess.reading.p50_ms} ms, learning the voice p50 ${inProcess.learning.p50_ms} ms.`,
    '',
    '| database | measure | p50 | p99 |',
    '| --- | --- | ---: | ---: |',
  ];
  for (const row of rows) {
    out.push(`| ${row.target} | brand voice, 10 × 20 kB pages, POST → completed | ${row.voice.p50_ms} ms | ${row.voice.p99_ms} ms |`);
  }
  out.push('', '| database | measure | direct to upstream | through the server | overhead |', '| --- | --- | ---: | ---: | ---: |');
  for (const row of rows) {
    const t = row.timings;
    for (const [label, direct, server] of [
      ['generation first delta p50', t.generation_direct.first_delta.p50_ms, t.generation_server.first_delta.p50_ms],
      ['generation first delta p99', t.generation_direct.first_delta.p99_ms, t.generation_server.first_delta.p99_ms],
      ['generation total (JSON) p50', t.generation_direct.total.p50_ms, t.generation_server.total.p50_ms],
      ['generation total (JSON) p99', t.generation_direct.total.p99_ms, t.generation_server.total.p99_ms],
      ['generation stream to [DONE] p50', t.generation_direct.stream_total.p50_ms, t.generation_server.stream_total.p50_ms],
      ['responses first delta p50', t.responses_direct.first_delta.p50_ms, t.responses_server.first_delta.p50_ms],
      ['responses first delta p99', t.responses_direct.first_delta.p99_ms, t.responses_server.first_delta.p99_ms],
      ['responses total (JSON) p50', t.responses_direct.total.p50_ms, t.responses_server.total.p50_ms],
      ['responses total (JSON) p99', t.responses_direct.total.p99_ms, t.responses_server.total.p99_ms],
      ['responses stream to [DONE] p50', t.responses_direct.stream_total.p50_ms, t.responses_server.stream_total.p50_ms],
    ])
      out.push(`| ${row.target} | ${label} | ${direct} ms | ${server} ms | +${round(server - direct)} ms |`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
