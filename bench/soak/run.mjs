// Memory under a sustained mixed workload (issue 23, item 6): the built server (`dist/main.js`, offline
// engine, its own process) on PGlite and on PostgreSQL, sent creates, reads, lists and errors from a few
// concurrent clients, round after round. After each round the server's RSS is sampled as it is, then a
// full garbage collection is asked of the server through its inspector (on 127.0.0.1) and RSS, the V8
// heap in use (from its own /metrics) and the resident part of its WebAssembly memory (PGlite's heap)
// are sampled again: the first is what an operator sees, the second what the process really keeps. The
// growth of both over the last half of the rounds is printed.
//
//   pnpm build && pnpm bench:soak [--requests 100000] [--rounds 10] [--concurrency 4] [--databases pglite,postgres] [--no-gc] [--json]
//
// PostgreSQL when BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server (a scratch database,
// dropped afterwards); PGlite in a temporary DATA_DIR. Only 127.0.0.1 is a target; every phase is
// bounded in count.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { createBenchAccount, freePort, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '4' },
    databases: { type: 'string', default: 'pglite,postgres' },
    // No forced collection: RSS as an operator sees it only, V8 collecting when it chooses.
    'no-gc': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const PER_ROUND = Math.ceil(REQUESTS / ROUNDS);
const PERSONA = 'persona_saas_cfo';
const MiB = 1024 * 1024;

/**
 * The server's memory now: RSS from /proc, and the resident bytes of its WebAssembly memories. V8 puts a
 * Wasm memory (PGlite's heap) in a reservation of many GiB: the accessible part is a read-write mapping
 * directly followed by the rest of the reservation, inaccessible (`---p`) and at least 1 GiB; no other
 * mapping of the process looks like that, so those mappings' Rss is the Wasm heap in RAM.
 */
function processMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  const mappings = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)/.exec(line);
    if (range) mappings.push({ start: BigInt(`0x${range[1]}`), end: BigInt(`0x${range[2]}`), perms: range[3], anonymous: range[4] === '0', rssKb: 0 });
    else if (line.startsWith('Rss:')) mappings.at(-1).rssKb = Number(line.split(/\s+/)[1]);
  }
  let wasmKb = 0;
  for (let i = 0; i + 1 < mappings.length; i++) {
    const [memory, guard] = [mappings[i], mappings[i + 1]];
    const isGuard = guard.perms === '---p' && guard.anonymous && guard.start === memory.end && guard.end - guard.start >= 1n << 30n;
    if (memory.perms === 'rw-p' && memory.anonymous && isGuard) wasmKb += memory.rssKb;
  }
  return { rss_mib: Math.round(rssKb / 1024), wasm_rss_mib: Math.round(wasmKb / 1024) };
}

/** A full garbage collection in the server, through the DevTools protocol of its inspector (Node's own WebSocket). */
async function collectGarbage(inspectPort) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  try {
    await new Promise((resolve, reject) => {
      socket.onerror = () => reject(new Error('inspector: WebSocket error'));
      socket.onopen = () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
      socket.onmessage = (event) => {
        if (JSON.parse(event.data).id === 1) resolve();
      };
    });
  } finally {
    socket.close();
  }
}

/** The V8 heap in use, from the server's own Prometheus endpoint. */
async function heapUsed(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const value = /^nodejs_heap_size_used_bytes\s+(\S+)/m.exec(text)?.[1];
  return value === undefined ? null : Math.round(Number(value) / MiB);
}

/**
 * The workload, one kind per request in turn: creates (a charged, stored response; a project), reads,
 * lists, and errors whose ids and keys are new on every request — what a map keyed by request data
 * would keep.
 */
function workload(api, key, workspace) {
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const projects = [];
  const call = async (method, path, body, expected, headers = auth) => {
    const res = await fetch(`${api.baseUrl}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} (expected ${expected}) ${text.slice(0, 300)}`);
    return text;
  };
  const kinds = [
    ['create response', (i) => call('POST', '/responses', { model: 'service-1', persona_id: PERSONA, input: `Would you pay $${i % 90} per seat?` }, 200)],
    ['create project', async (i) => projects.push(JSON.parse(await call('POST', '/projects', { workspace_id: workspace, name: `Soak ${i}` }, 200)).id)],
    ['read project', (i) => call('GET', `/projects/${projects[i % projects.length]}`, undefined, 200)],
    ['list projects', () => call('GET', '/projects?limit=20', undefined, 200)],
    ['list files', () => call('GET', '/files', undefined, 200)],
    ['usage', () => call('GET', '/usage', undefined, 200)],
    ['read persona', () => call('GET', `/personas/${PERSONA}`, undefined, 200)],
    ['list generations', () => call('GET', '/generations?limit=20', undefined, 200)],
    ['404 unknown id', (i) => call('GET', `/projects/proj_${randomBytes(8).toString('hex')}${i}`, undefined, 404)],
    ['400 invalid body', (i) => call('POST', '/projects', { workspace_id: workspace, name: '', [`field_${i}`]: i }, 400)],
    ['401 unknown key', () => call('GET', '/workspaces', undefined, 401, { authorization: `Bearer svc_live_${randomBytes(20).toString('hex')}` })],
  ];
  return { kinds, prime: () => kinds[1][1](0) };
}

async function soak(label, env) {
  const metricsPort = await freePort();
  const inspectPort = await freePort();
  // An account with credits for every charged call of the run (the bootstrap account's ran out at 90 000).
  const key = await createBenchAccount(env, 'soak');
  const api = await startApiServer({
    ...env,
    METRICS_PORT: String(metricsPort),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:${inspectPort}`,
  });
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  try {
    const pid = api.child.pid;
    log(`  ${label}: server pid ${pid} (${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]})`);
    const workspaces = JSON.parse(await (await fetch(`${api.baseUrl}/api/v1/workspaces`, { headers: { authorization: `Bearer ${key}` } })).text());
    const { kinds, prime } = workload(api, key, workspaces.data[0].id);
    await prime();
    const sample = async () => {
      const seen = processMemory(pid).rss_mib;
      if (!args['no-gc']) await collectGarbage(inspectPort);
      const { rss_mib, wasm_rss_mib } = processMemory(pid);
      return { rss_seen_mib: seen, rss_mib, wasm_rss_mib, heap_mib: await heapUsed(metricsUrl) };
    };
    const describe = (s) =>
      `RSS ${s.rss_seen_mib} MiB${args['no-gc'] ? '' : `, after a full GC ${s.rss_mib} MiB`} (Wasm ${s.wasm_rss_mib}, V8 heap ${s.heap_mib})`;
    const rounds = [{ round: 0, requests: 0, ...(await sample()), requests_per_s: null }];
    log(`  ${label}: start ${describe(rounds[0])}`);
    let sent = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const end = sent + PER_ROUND;
      const started = performance.now();
      const worker = async () => {
        while (sent < end) {
          const i = sent++;
          await kinds[i % kinds.length][1](i);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const seconds = (performance.now() - started) / 1000;
      const measured = { round, requests: end, ...(await sample()), requests_per_s: Math.round(PER_ROUND / seconds) };
      rounds.push(measured);
      log(`  ${label}: round ${round}, ${end} requests, ${measured.requests_per_s} req/s, ${describe(measured)}`);
    }
    const mid = rounds[Math.floor(ROUNDS / 2)];
    const last = rounds.at(-1);
    const growth = (field) => Math.round(((last[field] - mid[field]) / mid[field]) * 1000) / 10;
    return { target: label, rounds, last_half_growth_pct: growth('rss_mib'), last_half_growth_seen_pct: growth('rss_seen_mib') };
  } finally {
    await stopProcess(api.child);
  }
}

const results = [];
const cleanups = [];
try {
  log(`Benchmark: soak, ${REQUESTS} requests in ${ROUNDS} rounds at ${CONCURRENCY} concurrent clients per database`);
  const wanted = args.databases.split(',');
  if (wanted.includes('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-soak-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    results.push(await soak('PGlite', { DATA_DIR: dataDir }));
  }
  if (wanted.includes('postgres')) {
    const pg = await scratchDatabase('persona_bench_soak');
    if (pg) {
      cleanups.push(pg.drop);
      const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-soak-pg-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      results.push(await soak('PostgreSQL', { DATABASE_URL: pg.url, DATA_DIR: dataDir }));
    }
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

if (args.json) {
  process.stdout.write(`${JSON.stringify({ requests: REQUESTS, rounds: ROUNDS, concurrency: CONCURRENCY, results }, null, 2)}\n`);
} else {
  const out = [];
  for (const result of results) {
    out.push(
      '',
      args['no-gc']
        ? `${result.target}: over the last half of the rounds RSS grew ${result.last_half_growth_seen_pct} % (no forced GC)`
        : `${result.target}: over the last half of the rounds RSS after a full GC grew ${result.last_half_growth_pct} % (as seen, before it: ${result.last_half_growth_seen_pct} %)`,
      '',
      '| round | requests | req/s | RSS as seen (MiB) | RSS after full GC (MiB) | of it Wasm (MiB) | V8 heap used (MiB) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...result.rounds.map(
        (r) =>
          `| ${r.round} | ${r.requests} | ${r.requests_per_s ?? ''} | ${r.rss_seen_mib} | ${args['no-gc'] ? '—' : r.rss_mib} | ${r.wasm_rss_mib} | ${r.heap_mib} |`,
      ),
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
