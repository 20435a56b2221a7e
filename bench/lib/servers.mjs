// Servers the benchmarks measure, each in its own child process on 127.0.0.1.
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

/** The @persona-api/api package folder (its dist/ is what the benchmarks run). */
export const apiDir = dirname(createRequire(import.meta.url).resolve('@persona-api/api/package.json'));

const START_TIMEOUT_MS = 90_000;

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Starts a child process and waits until its output (stdout or stderr) matches `ready`.
 * @param {string} name for error messages
 * @param {RegExp} ready
 * @returns {Promise<import('node:child_process').ChildProcess>}
 */
export function startProcess(name, command, argv, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in 90 s:\n${output}`));
    }, START_TIMEOUT_MS);
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

/** Stops a child process: SIGTERM, then SIGKILL after 10 s. */
export function stopProcess(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/**
 * Starts the built API server (`dist/main.js`) on a free port and waits until /readyz answers 200
 * (it logs at warn, so there is no line to wait for). The rate limiter stays in the measured path;
 * only its ceiling is raised, so every response is measured, none refused.
 * @param {Record<string, string>} env the database and anything else the benchmark sets
 * @param {{ dir?: string, pollMs?: number }} [options] the API package whose dist/ runs (default: this
 *   checkout's) and how often /readyz is asked (bench:startup asks every 5 ms)
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, baseUrl: string, readyMs: number }>}
 *   readyMs: from spawn to the first 200
 */
export async function startApiServer(env, { dir = apiDir, pollMs = 100 } = {}) {
  const port = await freePort();
  const started = performance.now();
  // BENCH_CPU_PROF_DIR=dir: the server writes a V8 CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  // BENCH_NODE_FLAGS='--trace-gc …': more node flags for the server (NODE_OPTIONS does not take every flag).
  const flags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const child = spawn(process.execPath, [...profile, ...flags, join(dir, 'dist/main.js')], {
    // MALLOC_ARENA_MAX=2 as production starts it (Dockerfile, Procfile, `pnpm start`).
    env: { MALLOC_ARENA_MAX: '2', ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MULTIPLIER: '100000', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the API exited (${child.exitCode}):\n${output}`);
    const ready = await fetch(`${baseUrl}/readyz`).catch(() => null);
    if (ready?.status === 200) return { child, baseUrl, readyMs: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  child.kill('SIGKILL');
  throw new Error(`the API did not start in 90 s:\n${output}`);
}

/**
 * This checkout's admin CLI (`dist/admin/cli.js`) on the database `env` names (it migrates it first): its
 * output, and whether it exited 0.
 * @returns {Promise<{ ok: boolean, out: string }>}
 */
export function adminCli(env, ...argv) {
  return promisify(execFile)(process.execPath, [join(apiDir, 'dist/admin/cli.js'), ...argv], { env: { ...process.env, ...env } }).then(
    ({ stdout }) => ({ ok: true, out: stdout }),
    (err) => ({ ok: false, out: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
  );
}

/**
 * An enterprise account with plenty of credits, made with the admin CLI on the database `env` names; its id,
 * its API key and its owner's e-mail. `label` keeps the e-mails of several accounts in one run apart.
 * @returns {Promise<{ accountId: string, key: string, email: string }>}
 */
export async function createAccount(env, label = 'bench') {
  const email = `${label}-${process.pid}-${Date.now()}@bench.example`;
  const { ok, out } = await adminCli(env, 'accounts', 'create', '--email', email, '--tier', 'enterprise', '--credits', '1000000000');
  const accountId = /^account\s+(\S+)/m.exec(out)?.[1];
  const key = /svc_live_[A-Za-z0-9]+/.exec(out)?.[0];
  if (!ok || !accountId || !key) throw new Error(`admin accounts create:\n${out}`);
  return { accountId, key, email };
}

/** createAccount's API key alone. */
export async function createBenchAccount(env, label = 'bench') {
  return (await createAccount(env, label)).key;
}
