import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { openConfiguredDatabase } from '../src/db/open.js';
import { jobDefinitions } from '../src/jobs/registry.js';
import type { Services } from '../src/services.js';
import { emptyPostgresDatabase, type EmptyDatabase } from './support/database.js';
import { run, startServer } from './support/processes.js';

// `pnpm start` serves /api/v1 with migrations applied and catalogs seeded, and on the
// first start of an empty database creates a development account and prints its key once.
// Runs the real entry point in a child process, on the suite's driver.

const KEY = `svc_live_${randomBytes(20).toString('hex')}`;

describe('configuration', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toMatchObject({ PORT: 8080, DATA_DIR: '.data', LOG_LEVEL: 'info', HOST: '0.0.0.0' });
  });

  it('names every invalid variable and never echoes a secret', () => {
    const secret = 'svc_live_tooShort';
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', BOOTSTRAP_API_KEY: secret, DATABASE_URL: 'http://db.example', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'BOOTSTRAP_API_KEY', 'DATABASE_URL', 'LOG_LEVEL']) expect(message).toContain(`${name}:`);
    expect(message).toContain('"eighty"');
    expect(message).not.toContain(secret);
    expect(message).not.toContain('db.example');
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '' });
    expect(config.PORT).toBe(8080);
    expect(config.DATABASE_URL).toBeUndefined();
  });
});

// A real process on a fresh on-disk database: slow on a busy machine, so generous timeouts.
describe('pnpm start', { timeout: 120_000 }, () => {
  const provided = inject('database');
  let dataDir: string;
  let database: EmptyDatabase | null = null;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'persona-api-start-'));
    // On PostgreSQL an empty database: the server applies every migration itself.
    database = await emptyPostgresDatabase('start');
    env = { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('serves the API on a fresh database, prints the bootstrap key once and stops cleanly on SIGTERM', async () => {
    const server = await startServer({ ...env, BOOTSTRAP_API_KEY: KEY });
    try {
      expect(server.stdout().split(KEY).length - 1).toBeGreaterThanOrEqual(1);
      expect(server.stdout()).toContain('Development API key (shown once');
      // A fresh start says nothing an operator must act on (glue once warned of media types without a parser).
      const warnings = server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((entry) => entry.level >= 40);
      expect(warnings).toEqual([]);
      const res = await fetch(`${server.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { name: string; is_owner: boolean }[] };
      expect(body.data).toEqual([expect.objectContaining({ name: 'Development', is_owner: true })]);
      const usage = (await (await fetch(`${server.url}/api/v1/usage`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
        rate_limit: { tier: string };
        credits: { remaining: number };
      };
      expect(usage.rate_limit.tier).toBe('professional');
      expect(usage.credits.remaining).toBe(50_000);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      // Job queue depth and failures per kind the resources declare, all idle on a fresh database.
      const readiness = (await ready.json()) as { status: string; jobs: { kind: string; queued: number; active: number; failed: number }[] };
      expect(readiness.status).toBe('ok');
      const kinds = readiness.jobs.map((queue) => queue.kind);
      // Every kind the modules declare; the factories only close over services, so none are needed to list them.
      const declared = jobDefinitions({} as Services).map((definition) => definition.kind);
      expect(declared.length).toBeGreaterThan(5);
      expect(kinds.toSorted()).toEqual(declared.toSorted());
      for (const queue of readiness.jobs) expect(queue).toMatchObject({ queued: 0, active: 0, failed: 0 });
      // The bundled feeds were loaded into the empty database: news to list with no network.
      const stories = (await (await fetch(`${server.url}/api/v1/news/stories?limit=100`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
        data: unknown[];
      };
      expect(stories.data.length).toBe(11);

      if (provided.driver === 'pglite') {
        // PGlite is one process's database: the admin CLI must not open it while the server runs.
        await expect(
          openConfiguredDatabase(
            { DATA_DIR: dataDir, DATABASE_URL: undefined, DATABASE_POOL_SIZE: 1, DATABASE_PREPARED_STATEMENTS: true, PGLITE_WASM_TIER_UP: false },
            'test',
          ),
        ).rejects.toThrow(/in use by process/);
      }
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('shut down cleanly');
  });

  it('does not bootstrap again on a database that has accounts, and the admin CLI manages keys', async () => {
    const server = await startServer(env);
    try {
      expect(server.stdout()).not.toContain('Development API key');
      expect((await fetch(`${server.url}/api/v1/workspaces`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);

    const cli = run('src/admin/cli.ts', ['keys', 'list'], env);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain(KEY.slice(0, 13));
    expect(cli.output()).toContain('active');
  });

  it('refuses to start with an invalid configuration, saying why', async () => {
    const { output, exited } = run('src/main.ts', [], { ...env, PORT: 'eighty' });
    expect(await exited).toBe(1);
    expect(output()).toContain('PORT:');
  });
});
