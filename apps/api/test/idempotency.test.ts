import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../src/admin/accounts.js';
import { accounts, agentThreads, idempotencyKeys, projects, workspaces } from '../src/db/schema/index.js';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, releaseIdempotencyKey, requestFingerprint } from '../src/http/idempotency.js';
import type { Handler } from '../src/contract/handler-types.js';
import { openEventStream } from '../src/http/sse.js';
import { chargedCallControl, chargedCreateAgentThread, PRICE } from './support/charged-handler.js';
import { errorOf, Harness, type Tenant } from './support/harness.js';

// POSTs accept Idempotency-Key; a replay within 24 h returns the first response and
// charges nothing again; the same key with a different body is a 409 (DECISIONS.md).

let h: Harness;
let t: Tenant;
let n = 0;
const freshKey = () => `idem-${process.pid}-${++n}`;

let streamsRun = 0;
const streamingResponse: Handler<'createResponse'> = async (_input, ctx) => {
  streamsRun++;
  const stream = openEventStream(ctx);
  // A stream-level `error` event is the smallest event the contract accepts on its own.
  stream.send({ type: 'error', sequence_number: 0, code: 'internal_error', message: `run ${streamsRun}`, param: null }, 'error');
  return stream.done();
};

beforeAll(async () => {
  h = await Harness.create({ handlers: { createAgentThread: chargedCreateAgentThread, createResponse: streamingResponse } });
  t = await h.tenant({ credits: 100_000 });
});
afterAll(() => h.close());
afterEach(() => {
  chargedCallControl.gate = undefined;
  chargedCallControl.failAfterCharge = false;
});

const workspacesNamed = async (name: string) => (await h.db.select().from(workspaces).where(eq(workspaces.name, name))).length;
const balance = async (accountId: string) =>
  (await h.db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, accountId)))[0]?.balance;

describe('Idempotency-Key', () => {
  it('replays the first response, marked Idempotent-Replayed, without running the request again', async () => {
    const key = freshKey();
    const first = await h.post('/workspaces', t.key, { name: 'Replayed once' }, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await h.post('/workspaces', t.key, { name: 'Replayed once' }, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await workspacesNamed('Replayed once')).toBe(1);
  });

  it('charges nothing again on a replay of a paid call', async () => {
    const key = freshKey();
    const before = await balance(t.accountId);
    const body = { workspace_id: t.workspaceId, title: 'Paid once' };
    const first = await h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
    const replay = await h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(await balance(t.accountId)).toBe((before ?? 0) - PRICE);
    const threads = await h.db.select().from(agentThreads).where(eq(agentThreads.title, 'Paid once'));
    expect(threads).toHaveLength(1);
  });

  it('treats a body with its keys in another order as the same request', async () => {
    const key = freshKey();
    await h.post('/workspaces', t.key, { name: 'Order', type: 'starter' }, { 'idempotency-key': key });
    const replay = await h.request('POST', '/workspaces', {
      key: t.key,
      rawBody: '{"type":"starter","name":"Order"}',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses the same key with a different body: 409 idempotency_key_reused', async () => {
    const key = freshKey();
    await h.post('/workspaces', t.key, { name: 'First body' }, { 'idempotency-key': key });
    const reused = await h.post('/workspaces', t.key, { name: 'Second body' }, { 'idempotency-key': key });
    expect(reused.status).toBe(409);
    expect(errorOf(reused)).toEqual({ type: 'invalid_request_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(await workspacesNamed('Second body')).toBe(0);
  });

  it('refuses the same key on another operation as a different request', async () => {
    const key = freshKey();
    await h.post('/workspaces', t.key, { name: 'Elsewhere' }, { 'idempotency-key': key });
    const other = await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Elsewhere' }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(errorOf(other).code).toBe('idempotency_key_reused');
  });

  it('answers 409 idempotency_key_in_use while the first request is still running', async () => {
    const key = freshKey();
    let release!: () => void;
    chargedCallControl.gate = new Promise((resolve) => (release = resolve));
    const body = { workspace_id: t.workspaceId, title: 'Slow' };
    const first = h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
    // Let the first request claim the key and reach the gate.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const concurrent = await h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
    expect(concurrent.status).toBe(409);
    expect(errorOf(concurrent)).toEqual({ type: 'invalid_request_error', code: 'idempotency_key_in_use', param: 'Idempotency-Key' });
    release();
    expect((await first).status).toBe(200);
    chargedCallControl.gate = undefined;
    expect((await h.post('/agent/threads', t.key, body, { 'idempotency-key': key })).headers['idempotent-replayed']).toBe('true');
  });

  it('lets a retry run the request once the claim of a process that died has lapsed, exactly once', async () => {
    const key = freshKey();
    const body = { name: 'Orphaned claim' };
    const start = h.clock.ms();
    try {
      // What a process killed mid-request leaves: the key claimed in progress, its lease no longer renewed.
      await h.db.insert(idempotencyKeys).values({
        apiKeyId: t.apiKeyId,
        key,
        requestHash: requestFingerprint('POST', '/api/v1/workspaces', body),
        state: 'in_progress',
        createdAt: h.clock.now(),
        lockedUntil: new Date(start + IDEMPOTENCY_LEASE_MS),
      });
      const early = await h.post('/workspaces', t.key, body, { 'idempotency-key': key });
      expect(errorOf(early)).toMatchObject({ code: 'idempotency_key_in_use' });
      h.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
      // Two retries at once: one takes the claim over and runs; the other meets it in use, or replays
      // its answer if it had finished already.
      const retries = await Promise.all([1, 2].map(() => h.post('/workspaces', t.key, body, { 'idempotency-key': key })));
      const ran = retries.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
      expect(ran).toHaveLength(1);
      const other = retries.find((r) => r !== ran[0]);
      if (!other) throw new Error('both retries ran');
      if (other.status === 200) expect(other.body.id).toBe(ran[0]?.body.id);
      else expect(errorOf(other)).toMatchObject({ code: 'idempotency_key_in_use' });
      expect(await workspacesNamed('Orphaned claim')).toBe(1);
      const replay = await h.post('/workspaces', t.key, body, { 'idempotency-key': key });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.id).toBe(ran[0]?.body.id);
      // A body that differs is still refused, lapsed claim or not.
      expect(errorOf(await h.post('/workspaces', t.key, { name: 'Other' }, { 'idempotency-key': key }))).toMatchObject({ code: 'idempotency_key_reused' });
    } finally {
      h.clock.set(new Date(start));
    }
  });

  it('keeps renewing the claim of a request that is still running, so a retry never runs it twice', async () => {
    const key = freshKey();
    const start = h.clock.ms();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let release!: () => void;
    chargedCallControl.gate = new Promise((resolve) => (release = resolve));
    try {
      const body = { workspace_id: t.workspaceId, title: 'Long running' };
      const first = h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const leaseOf = async () => (await h.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key)))[0]?.lockedUntil?.getTime();
      expect(await leaseOf()).toBe(start + IDEMPOTENCY_LEASE_MS);
      // Two renewals while the handler runs: the lease moves with the clock.
      for (const step of [1, 2]) {
        h.clock.advance(IDEMPOTENCY_LEASE_MS / 2);
        vi.advanceTimersByTime(IDEMPOTENCY_LEASE_MS / 3);
        await vi.waitFor(async () => expect(await leaseOf()).toBe(start + (step * IDEMPOTENCY_LEASE_MS) / 2 + IDEMPOTENCY_LEASE_MS));
      }
      // Past the first lease: without the renewals this retry would run the request a second time.
      const retry = await h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
      expect(errorOf(retry)).toMatchObject({ code: 'idempotency_key_in_use' });
      release();
      expect((await first).status).toBe(200);
      expect(await leaseOf()).toBeUndefined();
      const replay = await h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
      expect(replay.headers['idempotent-replayed']).toBe('true');
    } finally {
      release();
      vi.useRealTimers();
      h.clock.set(new Date(start));
    }
  });

  it('keeps keys apart per API key', async () => {
    const key = freshKey();
    const { key: secondKey } = await createApiKey(h.db, { accountId: t.accountId, name: 'second' });
    await h.post('/workspaces', t.key, { name: 'Per key' }, { 'idempotency-key': key });
    const other = await h.post('/workspaces', secondKey, { name: 'Per key' }, { 'idempotency-key': key });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await workspacesNamed('Per key')).toBe(2);
  });

  it('forgets a key after 24 hours', async () => {
    const key = freshKey();
    const start = h.clock.ms();
    try {
      await h.post('/workspaces', t.key, { name: 'Expiring' }, { 'idempotency-key': key });
      h.clock.advance(IDEMPOTENCY_TTL_MS - 1);
      expect((await h.post('/workspaces', t.key, { name: 'Expiring' }, { 'idempotency-key': key })).headers['idempotent-replayed']).toBe('true');
      h.clock.advance(1);
      const fresh = await h.post('/workspaces', t.key, { name: 'Expiring' }, { 'idempotency-key': key });
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      expect(await workspacesNamed('Expiring')).toBe(2);
    } finally {
      h.clock.set(new Date(start));
    }
  });

  it('replays a stored client error such as a 402, and charges nothing', async () => {
    const poor = await h.tenant({ credits: 10 });
    const key = freshKey();
    const body = { workspace_id: poor.workspaceId };
    const first = await h.post('/agent/threads', poor.key, body, { 'idempotency-key': key });
    expect(first.status).toBe(402);
    const replay = await h.post('/agent/threads', poor.key, body, { 'idempotency-key': key });
    expect(replay.status).toBe(402);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('lets a retry run again after a server error', async () => {
    const key = freshKey();
    const body = { workspace_id: t.workspaceId, title: 'Retried after 500' };
    chargedCallControl.failAfterCharge = true;
    expect((await h.post('/agent/threads', t.key, body, { 'idempotency-key': key })).status).toBe(500);
    chargedCallControl.failAfterCharge = false;
    const retry = await h.post('/agent/threads', t.key, body, { 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not hold a key for a request that failed validation', async () => {
    const key = freshKey();
    expect((await h.post('/workspaces', t.key, { name: '' }, { 'idempotency-key': key })).status).toBe(400);
    expect((await h.post('/workspaces', t.key, { name: 'Valid now' }, { 'idempotency-key': key })).status).toBe(200);
  });

  it('replays the recorded events of a stream', async () => {
    const key = freshKey();
    const body = { model: 'service-1', persona_id: 'persona_x', input: 'Hi', stream: true };
    const first = await h.post('/responses', t.key, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(first.text).toContain('run 1');
    const replay = await h.post('/responses', t.key, body, { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(replay.text).toBe(first.text);
    expect(streamsRun).toBe(1);
  });

  // A cut after PostgreSQL committed but before its reply arrived: the transaction's promise rejects as
  // the driver does when the connection closes (postgres.js: CONNECTION_CLOSED).
  const connectionClosed = () => Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' });
  /** Makes the app's next transaction lose its COMMIT reply (`committed`: the work landed) or fail before it. */
  const loseNextCommit = (committed: boolean) => {
    const original = h.db.transaction;
    const patched = (async (work: Parameters<typeof original>[0], config?: Parameters<typeof original>[1]) => {
      h.db.transaction = original;
      if (committed) await original.call(h.db, work, config);
      throw connectionClosed();
    }) as typeof original;
    h.db.transaction = patched;
    return () => {
      h.db.transaction = original;
    };
  };
  const projectsNamed = async (name: string) => (await h.db.select().from(projects).where(eq(projects.name, name))).length;

  it('stores the answer in the create’s own transaction: a retry after a lost COMMIT reply replays it, nothing twice', async () => {
    const key = freshKey();
    const body = { workspace_id: t.workspaceId, name: 'Committed unheard' };
    const restore = loseNextCommit(true);
    try {
      const lost = await h.post('/projects', t.key, body, { 'idempotency-key': key });
      expect(lost.status).toBe(503);
      expect(errorOf(lost).code).toBe('service_unavailable');
    } finally {
      restore();
    }
    // Committed together: the project and its answer. The 503's release left the completed key alone.
    expect(await projectsNamed('Committed unheard')).toBe(1);
    const retry = await h.post('/projects', t.key, body, { 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.name).toBe('Committed unheard');
    const [project] = await h.db.select().from(projects).where(eq(projects.name, 'Committed unheard'));
    expect(retry.body.id).toBe(project?.id);
    expect(await projectsNamed('Committed unheard')).toBe(1);
  });

  it('rolls the create back with its answer when the transaction fails: the retry runs it once', async () => {
    const key = freshKey();
    const body = { workspace_id: t.workspaceId, name: 'Never committed' };
    const restore = loseNextCommit(false);
    try {
      expect((await h.post('/projects', t.key, body, { 'idempotency-key': key })).status).toBe(503);
    } finally {
      restore();
    }
    expect(await projectsNamed('Never committed')).toBe(0);
    // The claim was released (it was still in progress): the retry runs at once instead of a 409.
    const retry = await h.post('/projects', t.key, body, { 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await projectsNamed('Never committed')).toBe(1);
    expect((await h.post('/projects', t.key, body, { 'idempotency-key': key })).body.id).toBe(retry.body.id);
  });

  it('never lets a late release of an earlier claim delete a later claim of the same key', async () => {
    const key = freshKey();
    const body = { name: 'Released late' };
    const earlier = h.clock.now();
    const first = await h.post('/workspaces', t.key, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    // A release of a claim made at another time (a retry sent after the database came back) finds nothing.
    await releaseIdempotencyKey(h.db, t.apiKeyId, key, new Date(earlier.getTime() - 1_000));
    const replay = await h.post('/workspaces', t.key, body, { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await workspacesNamed('Released late')).toBe(1);
  });

  it('is ignored without the header: every POST runs', async () => {
    await h.post('/workspaces', t.key, { name: 'No key' });
    await h.post('/workspaces', t.key, { name: 'No key' });
    expect(await workspacesNamed('No key')).toBe(2);
  });
});
