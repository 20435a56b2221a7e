// Cold start of the built server (`dist/main.js`), as an operator's restart or a new instance meets it:
//   import   the time and memory of importing the app's modules alone (`dist/app.js`, nothing started);
//   new      spawn to the first 200 from /readyz on a new DATA_DIR (PGlite created, migrated, seeded);
//   again    the same on the DATA_DIR the previous start left (what every restart after the first does);
//   postgres spawn to ready on an already-migrated PostgreSQL database (when one is reachable);
// with the server's RSS at that moment. Then, for each package named in --packages, what importing it
// beforehand takes off the app's import: the most loading it lazily could save (shared dependencies count
// for the first package that loads them).
//
//   pnpm build && pnpm bench:startup [--rounds 5] [--packages ioredis,sharp,…] [--compare <apps/api of another checkout>] [--json]
//
// Each figure is the median of --rounds fresh processes (min–max beside it). --compare measures another
// built checkout's server too, in the same rounds, one after the other (the package figures are this
// checkout's only). PostgreSQL when
// BENCH_DATABASE_URL (else TEST_DATABASE_URL) reaches a server: a scratch database, dropped afterwards.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { apiDir, freePort, stopProcess } from '../lib/servers.mjs';

const DEFAULT_PACKAGES = [
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  'ioredis',
  '@modelcontextprotocol/sdk/server/streamableHttp.js',
  '@persona-api/mcp',
  'sharp',
  'feedsmith',
  'marked',
  'sanitize-html',
  'tesseract.js',
  'pg-boss',
  '@electric-sql/pglite',
  'postgres',
  'drizzle-orm',
  'fastify',
];

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    packages: { type: 'string', default: DEFAULT_PACKAGES.join(',') },
    compare: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const TARGETS = [{ label: 'this checkout', dir: apiDir }, ...(args.compare ? [{ label: args.compare, dir: args.compare }] : [])];
const ROUNDS = Number(args.rounds);
const PACKAGES = args.packages ? args.packages.split(',').filter(Boolean) : [];
const MiB = 1024 * 1024;
const READY_TIMEOUT_MS = 120_000;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const summary = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

/**
 * A fresh Node process (cwd: the API package, so bare names resolve as the server's do) that imports
 * `preload` untimed, then times `import('dist/app.js')`: milliseconds, RSS and JS heap after it.
 */
function timeAppImport(dir, preload) {
  const source = `
    ${preload ? `await import(${JSON.stringify(preload)});` : ''}
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
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`import of dist/app.js${preload ? ` after ${preload}` : ''} failed (${code}):\n${err}`)),
    );
  });
}

const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** Spawns the server and polls /readyz every 5 ms: milliseconds from spawn to the first 200, and its RSS then. */
async function timeStart(dir, env) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(dir, 'dist/main.js')], {
    env: { MALLOC_ARENA_MAX: '2', ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  try {
    while (performance.now() - started < READY_TIMEOUT_MS) {
      if (child.exitCode !== null) throw new Error(`the API exited (${child.exitCode}):\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      if (ready?.status === 200) return { ms: performance.now() - started, rss: rssOf(child.pid) };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`the API was not ready in ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
  } finally {
    await stopProcess(child);
  }
}

const figures = (runs) => ({ ms: summary(runs.map((r) => r.ms)), rss: summary(runs.map((r) => r.rss)) });
const results = { rounds: ROUNDS, node: process.version, targets: [], packages: [] };
const runs = TARGETS.map(() => ({ import: [], new: [], again: [], postgres: [] }));

for (let i = 0; i < ROUNDS; i++) {
  for (const [t, target] of TARGETS.entries()) {
    log(`round ${i + 1}, ${target.label}: import; PGlite on a new and an existing DATA_DIR`);
    runs[t].import.push(await timeAppImport(target.dir, null));
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

const baseImport = results.targets[0].import;
for (const name of PACKAGES) {
  log(`importing dist/app.js after ${name}`);
  const after = [];
  for (let i = 0; i < ROUNDS; i++) after.push(await timeAppImport(apiDir, name));
  results.packages.push({
    name,
    savedMs: baseImport.ms.median - median(after.map((r) => r.ms)),
    savedRss: baseImport.rssGrowth.median - median(after.map((r) => r.rssGrowth)),
  });
}

if (args.json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} else {
  const range = (s, scale, digits) => `${(s.median / scale).toFixed(digits)} (${(s.min / scale).toFixed(digits)}–${(s.max / scale).toFixed(digits)})`;
  console.log(`Node ${results.node}, median of ${ROUNDS} processes (min–max)`);
  for (const target of results.targets) {
    console.log(`\n${target.label}\n`);
    console.log('| what | ms | RSS, MiB |');
    console.log('| --- | ---: | ---: |');
    console.log(
      `| import dist/app.js | ${range(target.import.ms, 1, 0)} | ${range(target.import.rss, MiB, 0)} (+${(target.import.rssGrowth.median / MiB).toFixed(0)} by the import) |`,
    );
    for (const [name, s] of Object.entries(target.starts)) console.log(`| spawn to ready: ${name} | ${range(s.ms, 1, 0)} | ${range(s.rss, MiB, 0)} |`);
  }
  if (results.packages.length) {
    console.log('\n| imported first | import of dist/app.js shorter by, ms | RSS growth smaller by, MiB |');
    console.log('| --- | ---: | ---: |');
    for (const p of results.packages) console.log(`| ${p.name} | ${p.savedMs.toFixed(0)} | ${(p.savedRss / MiB).toFixed(0)} |`);
  }
}
