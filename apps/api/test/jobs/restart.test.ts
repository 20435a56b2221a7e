import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { driverName, openTestDatabase } from '../support/database.js';

const apiDir = join(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
let scratch: string;
let database: DatabaseHandle | undefined;

function startWorker(target: string, markers: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/survivor.ts'), target, markers], {
    cwd: apiDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  children.push(child);
  return child;
}

const until = async (condition: () => boolean, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'persona-jobs-restart-'));
  if (driverName() === 'postgres') database = await openTestDatabase();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL');
  await database?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('runs a job again after its expiry when the process running it was killed', { timeout: 120_000 }, async () => {
  const markers = join(scratch, 'markers');
  rmSync(markers, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(markers));
  // PGlite on disk, or the test's PostgreSQL database (its URL); the children connect themselves.
  const target = database?.connection.driver === 'postgres' ? database.connection.url : join(scratch, 'pglite');
  const runsOf = (pid: number | undefined) => readdirSync(markers).filter((name) => name.startsWith('run-') && name.endsWith(`-${pid}`));

  const first = startWorker(target, markers, { ENQUEUE: '1', HANG: '1' });
  await until(() => runsOf(first.pid).length > 0, 'the first run to start');
  expect(runsOf(first.pid)).toEqual([`run-0-${first.pid}`]);
  first.kill('SIGKILL');
  await exited(first);

  const second = startWorker(target, markers, {});
  await until(() => runsOf(second.pid).length > 0, 'the job to run again in the restarted process');
  // The killed attempt counted as one: the job runs again as attempt 1, once.
  expect(runsOf(second.pid)).toEqual([`run-1-${second.pid}`]);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(runsOf(second.pid)).toHaveLength(1);
  second.kill('SIGTERM');
  expect(await exited(second)).toBe(0);
});

it.runIf(driverName() === 'pglite')('pnpm worker refuses to run on PGlite', { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(apiDir, 'src/worker.ts')], {
    cwd: apiDir,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: join(scratch, 'refuse'), LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  expect(await exited(child)).toBe(1);
  expect(stderr).toContain('pnpm worker needs PostgreSQL (DATABASE_URL)');
  expect(existsSync(join(scratch, 'refuse'))).toBe(false);
});
