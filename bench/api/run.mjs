// Server throughput: requests/s and latency of an authenticated list call (GET /api/v1/workspaces,
// 20 workspaces) on PGlite and on PostgreSQL, next to a bare Fastify route returning the same JSON
// and to the Prism mock, in one run. Each server runs in its own process; autocannon runs here.
// Only 127.0.0.1 is ever a target, and every run is bounded in time.
//
//   pnpm build && pnpm --filter @persona-api/bench api [--duration 10] [--connections 20] [--json]
//
// PostgreSQL is used when BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server: a scratch
// database is created there and dropped afterwards. The mock runs when @persona-api/mock is built.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    json: { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const WORKSPACES = 20;
const PATH = `/api/v1/workspaces?limit=${WORKSPACES}`;
const KEY = `svc_live_${randomBytes(20).toString('hex')}`;
const require = createRequire(import.meta.url);
const apiMain = join(dirname(require.resolve('@persona-api/api/package.json')), 'dist/main.js');
const log = (line) => process.stderr.write(`${line}\n`);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Starts a child process and waits until its output matches `ready`. */
function start(name, command, argv, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in 90 s:\n${output}`));
    }, 90_000);
    const onData = (chunk) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}):\n${output}`));
    });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

function cannon(url, headers, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections: CONNECTIONS, duration, pipelining: 1 }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function measure(name, url, headers) {
  await cannon(url, headers, WARMUP);
  const result = await cannon(url, headers, DURATION);
  const row = {
    target: name,
    requests_per_s: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non_2xx: result.non2xx + result.errors + result.timeouts,
    bytes_per_response: Math.round(result.throughput.total / Math.max(1, result.requests.total)),
  };
  log(`  ${name}: ${row.requests_per_s} req/s, p99 ${row.latency_p99_ms} ms, non-2xx ${row.non_2xx}`);
  return row;
}

/** Starts the API on a database, fills it with WORKSPACES workspaces and returns the list body. */
async function startApi(name, env) {
  const port = await freePort();
  const child = await start(name, process.execPath, [apiMain], {
    PORT: String(port),
    HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: KEY,
    LOG_LEVEL: 'warn',
    // The limiter stays in the measured path; only its ceiling is raised.
    RATE_LIMIT_MULTIPLIER: '100000',
    ...env,
  }, /Development API key/);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200 && (await fetch(`${base}/readyz`).catch(() => null))?.status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  for (let i = 1; i < WORKSPACES; i++) {
    const res = await fetch(`${base}/api/v1/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: `Bench workspace ${i}`, type: 'marketing_agency' }) });
    if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  }
  const list = await fetch(`${base}${PATH}`, { headers });
  const body = await list.text();
  if (list.status !== 200 || JSON.parse(body).data.length !== WORKSPACES) throw new Error(`unexpected list: ${list.status} ${body.slice(0, 300)}`);
  return { child, url: `${base}${PATH}`, headers: { authorization: `Bearer ${KEY}` }, body };
}

async function postgresUrl() {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) return null;
  try {
    const postgres = require(require.resolve('postgres', { paths: [dirname(apiMain)] }));
    const admin = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 3 });
    const name = `persona_bench_${process.pid}`;
    await admin.unsafe(`drop database if exists "${name}"`);
    await admin.unsafe(`create database "${name}"`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    return {
      url: target.toString(),
      drop: async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      },
    };
  } catch (err) {
    log(`PostgreSQL not reachable (${err.message}); skipping it.`);
    return null;
  }
}

const rows = [];
const notes = [];
const cleanups = [];
let listBody;
try {
  log(`Benchmark: GET ${PATH}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per target`);

  const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const pglite = await startApi('api (PGlite)', { DATA_DIR: dataDir });
  listBody = pglite.body;
  rows.push(await measure('persona-api, PGlite', pglite.url, pglite.headers));
  await stop(pglite.child);

  const pg = await postgresUrl();
  if (pg) {
    cleanups.push(pg.drop);
    const api = await startApi('api (PostgreSQL)', { DATABASE_URL: pg.url, DATA_DIR: join(dataDir, 'unused') });
    rows.push(await measure('persona-api, PostgreSQL', api.url, api.headers));
    await stop(api.child);
  } else notes.push('PostgreSQL: not measured (no BENCH_DATABASE_URL or TEST_DATABASE_URL reachable).');

  const bodyFile = join(dataDir, 'body.json');
  writeFileSync(bodyFile, listBody);
  const barePort = await freePort();
  const bare = await start('bare Fastify', process.execPath, [join(import.meta.dirname, 'bare-server.mjs'), bodyFile, String(barePort)], {}, /listening/);
  rows.push(await measure('bare Fastify route, same JSON', `http://127.0.0.1:${barePort}${PATH}`, {}));
  await stop(bare);

  let mockMain = null;
  try {
    mockMain = join(dirname(require.resolve('@persona-api/mock/package.json')), 'dist/main.js');
  } catch {}
  if (mockMain && existsSync(mockMain)) {
    const mockPort = await freePort();
    const mock = await start('Prism mock', process.execPath, [mockMain, '--port', String(mockPort), '--log-level', 'silent'], {}, /Persona API mock/);
    rows.push(await measure('Prism mock (@persona-api/mock)', `http://127.0.0.1:${mockPort}${PATH}`, { authorization: `Bearer ${KEY}` }));
    await stop(mock);
  } else notes.push('Prism mock: not measured (@persona-api/mock is not built).');
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

if (args.json) {
  process.stdout.write(`${JSON.stringify({ path: PATH, connections: CONNECTIONS, duration_s: DURATION, rows, notes }, null, 2)}\n`);
} else {
  process.stdout.write(`\n| target | requests/s | p50 (ms) | p99 (ms) | non-2xx |\n| --- | ---: | ---: | ---: | ---: |\n`);
  for (const row of rows) process.stdout.write(`| ${row.target} | ${row.requests_per_s} | ${row.latency_p50_ms} | ${row.latency_p99_ms} | ${row.non_2xx} |\n`);
  for (const note of notes) process.stdout.write(`\n${note}\n`);
}
