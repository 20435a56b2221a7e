// Server throughput: requests/s and latency of an authenticated list call (GET /api/v1/workspaces,
// 20 workspaces) on PGlite and on PostgreSQL, next to a bare Fastify route returning the same JSON
// and to the Prism mock, in one run. Each server runs in its own process; autocannon runs here.
// Only 127.0.0.1 is ever a target, and every run is bounded in time.
//
//   pnpm build && pnpm --filter @persona-api/bench api [--duration 10] [--connections 20] [--json]
//
// PostgreSQL is used when BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server: a scratch
// database is created there and dropped afterwards. The mock runs when @persona-api/mock is built.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { measureLoad } from '../lib/load.mjs';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { freePort, startApiServer, startProcess, stopProcess } from '../lib/servers.mjs';

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

async function measure(name, url, headers) {
  const load = await measureLoad({ url, headers, connections: CONNECTIONS }, { warmup: WARMUP, duration: DURATION });
  const row = {
    target: name,
    requests_per_s: load.requests_per_s,
    latency_p50_ms: load.p50_ms,
    latency_p99_ms: load.p99_ms,
    non_2xx: load.failed,
    bytes_per_response: load.bytes_per_response,
  };
  log(`  ${name}: ${row.requests_per_s} req/s, p99 ${row.latency_p99_ms} ms, non-2xx ${row.non_2xx}`);
  return row;
}

/** Starts the API on a database, fills it with WORKSPACES workspaces and returns the list body. */
async function startApi(env) {
  const { child, baseUrl: base } = await startApiServer({ BOOTSTRAP_API_KEY: KEY, ...env });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  for (let i = 1; i < WORKSPACES; i++) {
    const res = await fetch(`${base}/api/v1/workspaces`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `Bench workspace ${i}`, type: 'marketing_agency' }),
    });
    if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  }
  const list = await fetch(`${base}${PATH}`, { headers });
  const body = await list.text();
  if (list.status !== 200 || JSON.parse(body).data.length !== WORKSPACES) throw new Error(`unexpected list: ${list.status} ${body.slice(0, 300)}`);
  return { child, url: `${base}${PATH}`, headers: { authorization: `Bearer ${KEY}` }, body };
}

const rows = [];
const notes = [];
const cleanups = [];
let listBody;
try {
  log(`Benchmark: GET ${PATH}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per target`);

  const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const pglite = await startApi({ DATA_DIR: dataDir });
  listBody = pglite.body;
  rows.push(await measure('persona-api, PGlite', pglite.url, pglite.headers));
  await stopProcess(pglite.child);

  const pg = await scratchDatabase('persona_bench');
  if (pg) {
    cleanups.push(pg.drop);
    const api = await startApi({ DATABASE_URL: pg.url, DATA_DIR: join(dataDir, 'unused') });
    rows.push(await measure('persona-api, PostgreSQL', api.url, api.headers));
    await stopProcess(api.child);
    // The hand-written peer on the same database and key: the same two queries, no framework of ours.
    const peerPort = await freePort();
    const peer = await startProcess(
      'hand-written peer',
      process.execPath,
      [join(import.meta.dirname, 'peer-server.mjs'), pg.url, String(peerPort)],
      {},
      /listening/,
    );
    const peerUrl = `http://127.0.0.1:${peerPort}${PATH}`;
    const peerBody = await (await fetch(peerUrl, { headers: api.headers })).json();
    const ours = JSON.parse(api.body);
    if (JSON.stringify(peerBody.data) !== JSON.stringify(ours.data)) throw new Error('the peer does not answer the same workspaces as the API');
    rows.push(await measure('hand-written Fastify + postgres.js peer', peerUrl, api.headers));
    await stopProcess(peer);
    // The same peer on node-postgres: the driver alternative weighed for the postgres.js defect (DECISIONS.md).
    const pgPeerPort = await freePort();
    const pgPeer = await startProcess(
      'hand-written peer (node-postgres)',
      process.execPath,
      [join(import.meta.dirname, 'peer-server.mjs'), pg.url, String(pgPeerPort), 'pg'],
      {},
      /listening/,
    );
    const pgPeerUrl = `http://127.0.0.1:${pgPeerPort}${PATH}`;
    const pgPeerBody = await (await fetch(pgPeerUrl, { headers: api.headers })).json();
    if (JSON.stringify(pgPeerBody.data) !== JSON.stringify(ours.data)) throw new Error('the node-postgres peer does not answer the same workspaces as the API');
    rows.push(await measure('hand-written Fastify + node-postgres peer', pgPeerUrl, api.headers));
    await stopProcess(pgPeer);
  } else notes.push('PostgreSQL: not measured (no BENCH_DATABASE_URL or TEST_DATABASE_URL reachable).');

  const bodyFile = join(dataDir, 'body.json');
  writeFileSync(bodyFile, listBody);
  const barePort = await freePort();
  const bare = await startProcess(
    'bare Fastify',
    process.execPath,
    [join(import.meta.dirname, 'bare-server.mjs'), bodyFile, String(barePort)],
    {},
    /listening/,
  );
  rows.push(await measure('bare Fastify route, same JSON', `http://127.0.0.1:${barePort}${PATH}`, {}));
  await stopProcess(bare);

  let mockMain = null;
  try {
    mockMain = join(dirname(require.resolve('@persona-api/mock/package.json')), 'dist/main.js');
  } catch {}
  if (mockMain && existsSync(mockMain)) {
    const mockPort = await freePort();
    const mock = await startProcess('Prism mock', process.execPath, [mockMain, '--port', String(mockPort), '--log-level', 'silent'], {}, /Persona API mock/);
    rows.push(await measure('Prism mock (@persona-api/mock)', `http://127.0.0.1:${mockPort}${PATH}`, { authorization: `Bearer ${KEY}` }));
    await stopProcess(mock);
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
