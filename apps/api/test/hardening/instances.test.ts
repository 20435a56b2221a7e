// Several instances (issue 17): two API processes with WORKERS=off and one `pnpm worker`, on one
// PostgreSQL database and one Redis, started together on an empty database. The rate limit is shared
// exactly, idempotency holds across instances, a stored response written by one is continued on the
// other, and background jobs run in the worker only, once. PostgreSQL and Redis only: PGlite is one
// process by design.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase, type EmptyDatabase } from '../support/database.js';
import { run, startServer, type Started } from '../support/processes.js';

const provided = inject('database');
const redisUrl = process.env.TEST_REDIS_URL;
const enabled = provided.driver === 'postgres' && Boolean(redisUrl);
const KEY = `svc_live_${randomBytes(20).toString('hex')}`;
const VTT = `WEBVTT

00:00:01.000 --> 00:00:09.000
<v Ana Silva>Thanks for joining. How is the rollout going for your support team?

00:00:09.500 --> 00:00:20.000
<v Ben Okafor>Mostly good, but the Zendesk integration keeps dropping tickets, which is a real problem.

00:00:20.500 --> 00:00:30.000
<v Ana Silva>I will open an escalation with our integration engineers today.
`;

// On PGlite the several-instances shape does not exist: the embedded database belongs to one process,
// and `pnpm worker` says so instead of opening it a second time.
if (!enabled)
  describe('one process on PGlite', { timeout: 60_000 }, () => {
    it('refuses a separate worker without PostgreSQL, saying why', async () => {
      const worker = run('src/worker.ts', [], { DATA_DIR: mkdtempSync(join(tmpdir(), 'persona-worker-')) });
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toContain('pnpm worker needs PostgreSQL (DATABASE_URL)');
    });
  });

if (enabled)
  describe('several instances on one PostgreSQL and Redis', { timeout: 180_000 }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'persona-instances-'));
    let database: EmptyDatabase | null = null;
    let env: Record<string, string>;
    let a: Started;
    let b: Started;

    const call = (server: Started, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    beforeAll(async () => {
      database = await emptyPostgresDatabase('instances');
      if (!database) return;
      // One storage directory for all three, as one bucket would be in production.
      env = { DATABASE_URL: database.url, REDIS_URL: redisUrl!, DATA_DIR: dataDir, WORKERS: 'off', BOOTSTRAP_API_KEY: KEY, LOG_LEVEL: 'warn' };
      // Started together on an empty database: migrations and the first-start bootstrap happen once.
      [a, b] = await Promise.all([startServer({ ...env, LOG_LEVEL: 'info' }), startServer({ ...env, LOG_LEVEL: 'info' })]);
    });

    afterAll(async () => {
      for (const server of [a, b]) if (server?.child.exitCode === null) server.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    });

    it('bootstraps one development account although both instances started on the empty database', async () => {
      const bootstraps = [a, b].filter((server) => server.stdout().includes('Development API key (shown once')).length;
      expect(bootstraps).toBe(1);
      const list = (await (await call(b, 'GET', '/workspaces')).json()) as { data: unknown[] };
      expect(list.data).toHaveLength(1);
    });

    it('keeps one Idempotency-Key to one execution across instances', async () => {
      const body = { name: `Launch team ${randomBytes(3).toString('hex')}` };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => call(i % 2 === 0 ? a : b, 'POST', '/workspaces', body, { 'idempotency-key': 'one-key-two-instances' })),
      );
      const bodies = (await Promise.all(answers.map((res) => res.json()))) as { id?: string; error?: { code: string } }[];
      const created = new Set(bodies.filter((entry) => entry.id).map((entry) => entry.id));
      expect(created.size).toBe(1);
      for (const entry of bodies.filter((entry) => !entry.id)) expect(entry.error?.code).toBe('idempotency_key_in_use');
      const list = (await (await call(b, 'GET', '/workspaces?limit=100')).json()) as { data: { name: string }[] };
      expect(list.data.filter((workspace) => workspace.name === body.name)).toHaveLength(1);
    });

    it('continues on one instance a response streamed and stored by the other', async () => {
      const streamed = await call(a, 'POST', '/responses', {
        model: 'service-1',
        persona_id: 'persona_saas_cfo',
        input: 'What would make you switch finance tools this quarter?',
        stream: true,
      });
      expect(streamed.headers.get('content-type')).toContain('text/event-stream');
      const text = await streamed.text();
      const completed = /event: response\.completed\ndata: (.*)\n/.exec(text);
      expect(completed).not.toBeNull();
      const id = (JSON.parse(completed![1]!) as { response: { id: string } }).response.id;
      const next = await call(b, 'POST', '/responses', {
        model: 'service-1',
        persona_id: 'persona_saas_cfo',
        input: 'And what would stop you?',
        previous_response_id: id,
      });
      const nextBody = (await next.json()) as { previous_response_id: string };
      expect(next.status, JSON.stringify(nextBody)).toBe(200);
      expect(nextBody.previous_response_id).toBe(id);
    });

    it('runs background jobs in the worker only, once', async () => {
      const workspaceId = ((await (await call(a, 'GET', '/workspaces')).json()) as { data: { id: string }[] }).data[0]!.id;
      const bytes = Buffer.from(VTT);
      const target = (await (
        await call(a, 'POST', '/files/upload-url', { workspace_id: workspaceId, file_name: 'call.vtt', file_type: 'text/vtt', file_size: bytes.length })
      ).json()) as { upload_url: string; next_step: { body: Record<string, unknown> } };
      // Uploaded through the other instance: the signed link and the bytes are shared.
      const upload = new URL(target.upload_url);
      const put = await fetch(`${b.url}${upload.pathname}${upload.search}`, { method: 'PUT', headers: { 'content-type': 'text/vtt' }, body: bytes });
      expect(put.status).toBe(200);
      const file = (await (await call(a, 'POST', '/files', target.next_step.body)).json()) as { id: string };
      const meeting = (await (await call(b, 'POST', '/meetings', { workspace_id: workspaceId, transcript_file_id: file.id })).json()) as { id: string };
      // Neither API instance runs jobs.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(((await (await call(a, 'GET', `/meetings/${meeting.id}`)).json()) as { status: string }).status).toBe('pending');
      const worker = run('src/worker.ts', [], { ...env, LOG_LEVEL: 'info' });
      try {
        let status = 'pending';
        let detail: { status_changes: { code: string }[] } | null = null;
        for (const deadline = Date.now() + 90_000; Date.now() < deadline && status !== 'done'; ) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          detail = (await (await call(a, 'GET', `/meetings/${meeting.id}`)).json()) as typeof detail & { status: string };
          status = (detail as unknown as { status: string }).status;
        }
        expect(status, worker.output()).toBe('done');
        expect(detail!.status_changes.filter((change) => change.code === 'done')).toHaveLength(1);
        const analysis = (await (await call(b, 'GET', `/meetings/${meeting.id}/analysis`)).json()) as { action_items: { owner: string }[] };
        expect(analysis.action_items.map((item) => item.owner)).toEqual(['Ana Silva']);
      } finally {
        worker.child.kill('SIGTERM');
        await worker.exited;
      }
    });

    it('shares the rate limit exactly: requests spread over both instances get exactly the limit', async () => {
      const first = await call(a, 'GET', '/workspaces');
      expect(first.status).toBe(200);
      const remaining = Number(first.headers.get('ratelimit-remaining'));
      expect(remaining).toBeGreaterThan(0);
      const statuses: number[] = [];
      const extra = 12;
      // In waves of 24 concurrent requests, alternating instances.
      for (let sent = 0; sent < remaining + extra; sent += 24) {
        const wave = Array.from({ length: Math.min(24, remaining + extra - sent) }, (_, i) =>
          call((sent + i) % 2 === 0 ? a : b, 'GET', '/workspaces?limit=1').then(async (res) => {
            if (res.status === 429) {
              const body = (await res.json()) as { error: { code: string } };
              expect(body.error.code).toBe('rate_limit_exceeded');
              expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
            } else await res.arrayBuffer();
            return res.status;
          }),
        );
        statuses.push(...(await Promise.all(wave)));
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(remaining);
      expect(statuses.filter((status) => status === 429)).toHaveLength(extra);
    });
  });
