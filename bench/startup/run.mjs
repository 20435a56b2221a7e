// Cold start of the built server (`dist/main.js`), as an operator's restart or a new instance meets it:
//   import   the time and memory of importing the app's modules alone (`dist/app.js`, nothing started);
//   new      spawn to the first 200 from /readyz on a new DATA_DIR (PGlite created, migrated, seeded);
//   again    the same on the DATA_DIR the previous start left (what every restart after the first does);
//   postgres spawn to ready on an already-migrated PostgreSQL database (when one is reachable);
// with the server's RSS at that moment, RSS once settled (SETTLE_MS later: a restart on PGlite passes through a
// peak of about 1 GiB for a second, which an earlier "ready" lands in) and its peak RSS until then (VmHWM).
//
//   pnpm build && pnpm bench:startup [--rounds 5] [--compare <apps/api of another checkout>] [--json]
//
// Each figure is the median of --rounds fresh processes (min–max beside it). --compare measures another
// built checkout's server too, in the same rounds, one after the other. PostgreSQL when
// BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server: a scratch database, dropped afterwards.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { apiDir, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    compare: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const TARGETS = [{ label: 'this checkout', dir: apiDir }, ...(args.compare ? [{ label: args.compare, dir: args.compare }] : [])];
const ROUNDS = Number(args.rounds);
const MiB = 1024 * 1024;
/** How long after ready the settled RSS is read. */
const SETTLE_MS = 5_000;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const summary = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

/** A fresh Node process that times `import('dist/app.js')`: milliseconds, RSS and JS heap after it. */
function timeAppImport(dir) {
  const source = `
    const { performance } = await import('node:perf_hooks');
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    await import(${JSON.stringify(new URL(`file://${join(dir, 'dist/app.js')}`).href)});
    const ms = performance.now() - started;
    const { rss, heapUsed } = process.memoryUsage();
    process.stdout.write(JSON.stringify({ ms, rss, rssGrowth: rss - rssBefore, heapUsed }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`import of dist/app.js failed (${code}):\n${err}`))));
  });
}

const statusOf = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/**
 * Starts the server (/readyz asked every 5 ms): milliseconds from spawn to the first 200, its RSS then,
 * SETTLE_MS later, and its peak until then.
 */
async function timeStart(dir, env) {
  const { child, readyMs } = await startApiServer(env, { dir, pollMs: 5 });
  try {
    const rss = statusOf(child.pid, 'VmRSS');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { ms: readyMs, rss, settled: statusOf(child.pid, 'VmRSS'), peak: statusOf(child.pid, 'VmHWM') };
  } finally {
    await stopProcess(child);
  }
}

const figures = (runs) => ({
  ms: summary(runs.map((r) => r.ms)),
  rss: summary(runs.map((r) => r.rss)),
  settled: summary(runs.map((r) => r.settled)),
  peak: summary(runs.map((r) => r.peak)),
});
const results = { rounds: ROUNDS, node: process.version, settleMs: SETTLE_MS, targets: [] };
const runs = TARGETS.map(() => ({ import: [], new: [], again: [], postgres: [] }));

for (let i = 0; i < ROUNDS; i++) {
  for (const [t, target] of TARGETS.entries()) {
    log(`round ${i + 1}, ${target.label}: import; PGlite on a new and an existing DATA_DIR`);
    runs[t].import.push(await timeAppImport(target.dir));
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
    try {
      runs[t].new.push(await timeStart(target.dir, { DATA_DIR: dataDir }));
      runs[t].again.push(await timeStart(target.dir, { DATA_DIR: dataDir }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

const database = await scratchDatabase('bench_startup');
if (database) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  try {
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir };
    log('PostgreSQL: a first start migrates the scratch database (not counted)');
    await timeStart(apiDir, env);
    for (let i = 0; i < ROUNDS; i++) for (const [t, target] of TARGETS.entries()) runs[t].postgres.push(await timeStart(target.dir, env));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

for (const [t, target] of TARGETS.entries()) {
  const r = runs[t];
  results.targets.push({
    label: target.label,
    import: { ...figures(r.import), rssGrowth: summary(r.import.map((x) => x.rssGrowth)) },
    starts: {
      'pglite, new DATA_DIR': figures(r.new),
      'pglite, existing DATA_DIR': figures(r.again),
      ...(r.postgres.length ? { 'postgres, migrated': figures(r.postgres) } : {}),
    },
  });
}

if (args.json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} else {
  const range = (s, scale, digits) => `${(s.median / scale).toFixed(digits)} (${(s.min / scale).toFixed(digits)}–${(s.max / scale).toFixed(digits)})`;
  console.log(`Node ${results.node}, median of ${ROUNDS} processes (min–max)`);
  for (const target of results.targets) {
    console.log(`\n${target.label}\n`);
    console.log(`| what | ms | RSS at ready, MiB | RSS ${SETTLE_MS / 1000} s later, MiB | peak RSS, MiB |`);
    console.log('| --- | ---: | ---: | ---: | ---: |');
    const imported = target.import;
    console.log(
      `| import dist/app.js | ${range(imported.ms, 1, 0)} | ${range(imported.rss, MiB, 0)} (+${(imported.rssGrowth.median / MiB).toFixed(0)} by the import) | | |`,
    );
    for (const [name, s] of Object.entries(target.starts)) {
      console.log(`| spawn to ready: ${name} | ${range(s.ms, 1, 0)} | ${range(s.rss, MiB, 0)} | ${range(s.settled, MiB, 0)} | ${range(s.peak, MiB, 0)} |`);
    }
  }
}
