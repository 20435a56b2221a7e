// What metrics and tracing cost: the list call (GET /api/v1/workspaces?limit=20, 20 workspaces) and a
// non-streamed POST /responses (offline engine), with observability off and on, side by side in one run.
// "On" is METRICS_PORT (scraped every 5 s, as Prometheus would) and OTEL_EXPORTER_OTLP_ENDPOINT (every
// request traced and exported over OTLP http/protobuf to a receiver in this process that counts what it
// gets). Rounds alternate off, on, off, on on the same database so drift on a shared machine hits both.
//
//   pnpm build && pnpm --filter @persona-api/bench observability [--duration 5] [--rounds 2] [--json]
//
// PostgreSQL when BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server (a scratch database,
// dropped afterwards), else PGlite. Only 127.0.0.1 is ever a target, and every phase is bounded in time.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { createBenchAccount, freePort, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const ROUNDS = Number(args.rounds);
const WORKSPACES = 20;
const LIST = `/api/v1/workspaces?limit=${WORKSPACES}`;
// Off; metrics only; metrics and every request traced; metrics and 10 % of requests traced (a usual production sampler).
const MODES = ['off', 'metrics', 'metrics+traces', 'metrics+traces 10%'];
const RESPONSE_BODY = JSON.stringify({
  model: 'service-1',
  persona_id: 'persona_saas_cfo',
  input: 'We are pitching an AI forecasting add-on at $18 per seat per month. What would make you say yes?',
  store: false,
});

/** An OTLP/HTTP receiver standing in for a collector: it counts exports and bytes. */
async function startOtlpSink() {
  const received = { exports: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk) => {
      received.bytes += chunk.length;
    });
    request.on('end', () => {
      received.exports++;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** CPU time (user + system, ms) the process has used so far, from /proc (clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const cannon = (options, duration) =>
  new Promise((resolve, reject) => autocannon({ ...options, duration, pipelining: 1 }, (err, result) => (err ? reject(err) : resolve(result))));

/**
 * Throughput and latency, and the server's CPU per request over the measured part: on a machine shared
 * with other work throughput drifts, while CPU per request is what observability adds to each call.
 */
async function load(name, options, connections, pid) {
  await cannon({ ...options, connections }, WARMUP);
  const cpuBefore = cpuMs(pid);
  const result = await cannon({ ...options, connections }, DURATION);
  const cpu = cpuMs(pid) - cpuBefore;
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${name}: ${failed} failed requests`);
  return {
    requests_per_s: Math.round(result.requests.average),
    p99_ms: result.latency.p99,
    cpu_ms_per_request: Math.round((cpu / Math.max(1, result.requests.total)) * 100) / 100,
  };
}

const rows = [];
const cleanups = [];
try {
  const sink = await startOtlpSink();
  cleanups.push(sink.close);
  const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-obs-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const pg = await scratchDatabase('persona_bench_obs');
  if (pg) cleanups.push(pg.drop);
  const database = pg ? { DATABASE_URL: pg.url, DATA_DIR: join(dataDir, 'unused') } : { DATA_DIR: dataDir };
  const driver = pg ? 'PostgreSQL' : 'PGlite';
  const key = await createBenchAccount(database, 'bench-obs');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  log(`Benchmark: observability off vs on, ${driver}; ${ROUNDS} rounds of off and on, ${WARMUP} s warm-up + ${DURATION} s per measurement`);

  let seeded = false;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of MODES) {
      const metricsPort = await freePort();
      const metrics = { METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1' };
      const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'persona-api-bench' };
      const observability = {
        off: {},
        metrics,
        'metrics+traces': { ...metrics, ...tracing },
        'metrics+traces 10%': { ...metrics, ...tracing, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      }[mode];
      const { child, baseUrl } = await startApiServer({ ...database, ...observability });
      try {
        if (!seeded) {
          for (let i = 1; i < WORKSPACES; i++) {
            const res = await fetch(`${baseUrl}/api/v1/workspaces`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ name: `Bench workspace ${i}`, type: 'marketing_agency' }),
            });
            if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
          }
          seeded = true;
        }
        const scrapes = { count: 0, bytes: 0 };
        const scraper =
          mode !== 'off'
            ? setInterval(() => {
                fetch(`http://127.0.0.1:${metricsPort}/metrics`)
                  .then((res) => res.text())
                  .then(
                    (text) => {
                      scrapes.count++;
                      scrapes.bytes = text.length;
                    },
                    () => undefined,
                  );
              }, 5_000)
            : undefined;
        const exportsBefore = sink.received.exports;
        const list = await load(`list ${mode}`, { url: `${baseUrl}${LIST}`, headers }, 20, child.pid);
        const responses = await load(`responses ${mode}`, { url: `${baseUrl}/api/v1/responses`, method: 'POST', headers, body: RESPONSE_BODY }, 10, child.pid);
        clearInterval(scraper);
        const row = {
          round,
          mode,
          list_requests_per_s: list.requests_per_s,
          list_p99_ms: list.p99_ms,
          list_cpu_ms: list.cpu_ms_per_request,
          responses_requests_per_s: responses.requests_per_s,
          responses_p99_ms: responses.p99_ms,
          responses_cpu_ms: responses.cpu_ms_per_request,
          otlp_exports: sink.received.exports - exportsBefore,
          scrapes: scrapes.count,
          scrape_bytes: scrapes.bytes,
        };
        if (mode.includes('traces') && row.otlp_exports === 0) throw new Error('tracing was on but nothing reached the OTLP receiver');
        log(
          `  round ${round} ${mode}: list ${row.list_requests_per_s} req/s (p99 ${row.list_p99_ms} ms, ${row.list_cpu_ms} ms CPU), responses ${row.responses_requests_per_s} req/s (p99 ${row.responses_p99_ms} ms, ${row.responses_cpu_ms} ms CPU), OTLP exports ${row.otlp_exports}, scrapes ${row.scrapes}`,
        );
        rows.push(row);
      } finally {
        await stopProcess(child);
      }
    }
  }

  const mean = (mode, field) => {
    const values = rows.filter((row) => row.mode === mode).map((row) => row[field]);
    return Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 100) / 100;
  };
  // Each mode against `off` of the same round (measured minutes apart, not hours), then the median of those
  // ratios over rounds: a shared machine drifts between rounds, and one disturbed round does not move a median.
  const pairedChange = (mode, field) => {
    const ratios = rows
      .filter((row) => row.mode === mode)
      .map((row) => row[field] / rows.find((other) => other.round === row.round && other.mode === 'off')[field])
      .sort((a, b) => a - b);
    const middle = ratios.length / 2;
    const median = ratios.length % 2 ? ratios[Math.floor(middle)] : (ratios[middle - 1] + ratios[middle]) / 2;
    return Math.round((median - 1) * 1000) / 10;
  };
  const summary = ['list_requests_per_s', 'list_cpu_ms', 'responses_requests_per_s', 'responses_cpu_ms'].map((field) => {
    const off = mean('off', field);
    const row = { measure: field, off };
    for (const mode of MODES.slice(1)) row[mode] = `${mean(mode, field)} (${pairedChange(mode, field)} %)`;
    return row;
  });
  if (args.json) process.stdout.write(`${JSON.stringify({ driver, duration_s: DURATION, rounds: rows, summary }, null, 2)}\n`);
  else {
    const columns = [
      'round',
      'mode',
      'list_requests_per_s',
      'list_p99_ms',
      'list_cpu_ms',
      'responses_requests_per_s',
      'responses_p99_ms',
      'responses_cpu_ms',
      'otlp_exports',
      'scrapes',
    ];
    process.stdout.write(`\n${driver}\n\n| ${columns.join(' | ')} |\n| ${columns.map(() => '---').join(' | ')} |\n`);
    for (const row of rows) process.stdout.write(`| ${columns.map((column) => row[column]).join(' | ')} |\n`);
    process.stdout.write(
      `\n| measure (mean; change: median over rounds of each round's ratio to off) | off | ${MODES.slice(1).join(' | ')} |\n| --- | ${MODES.map(() => '---:').join(' | ')} |\n`,
    );
    for (const s of summary)
      process.stdout.write(
        `| ${s.measure} | ${s.off} | ${MODES.slice(1)
          .map((mode) => s[mode])
          .join(' | ')} |\n`,
      );
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
