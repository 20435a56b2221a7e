import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/admin/cli.js';
import { billingPeriod, checkCredits, chargeCredits, creditsUsed, grantCredits, holdCredits, refundCredits } from '../src/billing/credits.js';
import { type CountMismatch, countsRebuild, reconcileCounts, reconcileUsageCounters, usageCountersBackfills } from '../src/billing/reconcile.js';
import {
  accounts,
  agentThreads,
  budgetAlerts,
  creditLedger,
  creditUsageDaily,
  folders,
  meetings,
  projects,
  transcriptionUsageDaily,
  workspaces,
} from '../src/db/schema/index.js';
import { rowsOf } from '../src/db/sql.js';
import { insertFileRow } from '../src/resources/files/repository.js';
import { countTranscriptionMinutes } from '../src/resources/meetings/repository.js';
import { chargedCallControl, chargedCreateAgentThread, PRICE } from './support/charged-handler.js';
import { errorOf, useHarness, type Tenant } from './support/harness.js';

// A ledger of every charge and grant; a charge written in the same transaction as the
// effect it pays for; 402s with no effect; budget alerts and usage limits as DECISIONS.md says.

const h = useHarness({ handlers: { createAgentThread: chargedCreateAgentThread } });
afterEach(() => {
  chargedCallControl.failAfterCharge = false;
});

async function balanceOf(accountId: string): Promise<number> {
  const [row] = await h.db.select({ balance: accounts.creditBalance }).from(accounts).where(eq(accounts.id, accountId));
  return row?.balance ?? Number.NaN;
}

async function ledgerOf(accountId: string) {
  return h.db.select().from(creditLedger).where(eq(creditLedger.accountId, accountId)).orderBy(creditLedger.seq);
}

async function threadsOf(workspaceId: string): Promise<number> {
  const rows = await h.db.select().from(agentThreads).where(eq(agentThreads.workspaceId, workspaceId));
  return rows.length;
}

const charged = (tenant: Tenant, extra: Record<string, unknown> = {}) =>
  h.post('/agent/threads', tenant.key, { workspace_id: tenant.workspaceId, title: 'Paid', ...extra });

describe('refunds', () => {
  it('reverses a charge once, however often the refund runs, and usage nets it out', async () => {
    const t = await h.tenant({ credits: 1_000 });
    expect((await charged(t)).status).toBe(200);
    const [charge] = (await ledgerOf(t.accountId)).filter((row) => row.kind === 'charge');
    const refund = () => h.db.transaction((tx) => refundCredits(tx, { chargeLedgerId: charge!.id, description: 'Job failed', now: h.clock.now() }));
    const results = await Promise.all([refund(), refund()]);
    expect(results.sort()).toEqual([0, PRICE]);
    expect(await refund()).toBe(0);
    const refunds = (await ledgerOf(t.accountId)).filter((row) => row.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: PRICE, workspaceId: t.workspaceId, apiKeyId: t.apiKeyId });
    expect(await balanceOf(t.accountId)).toBe(1_000);
    expect((await h.get('/usage', t.key)).body.credits.used).toBe(0);
  });
});

describe('credit holds', () => {
  it('commit asynchronously on their own: the connection commits the next statement (a charge) synchronously again', async () => {
    const t = await h.tenant({ credits: 1_000 });
    for (let i = 0; i < 10; i++) {
      const hold = await holdCredits(h.db, { accountId: t.accountId, workspaceId: t.workspaceId, floor: 5, estimate: 20, now: h.clock.now() });
      expect(hold.credits).toBe(20);
      await hold.release();
    }
    // set_config(…, true) lasts to the end of the hold's own transaction: a connection that ran a hold
    // (the pool reuses them) still commits the next statement, a charge, synchronously.
    const settings = await Promise.all(
      Array.from(
        { length: 5 },
        async () => rowsOf<{ value: string }>(await h.db.execute(sql`select current_setting('synchronous_commit') as value`))[0]?.value,
      ),
    );
    expect(settings).toEqual(Array(5).fill('on'));
  });
});

describe('the ledger', () => {
  it('records grants and charges, and the balance is always their sum', async () => {
    const t = await h.tenant({ credits: 1_000 });
    await grantCredits(h.db, { accountId: t.accountId, amount: 250, description: 'Top-up', now: h.clock.now() });
    expect((await charged(t)).status).toBe(200);
    const ledger = await ledgerOf(t.accountId);
    expect(ledger.map((row) => [row.kind, row.amount])).toEqual([
      ['grant', 1_000],
      ['grant', 250],
      ['charge', -PRICE],
    ]);
    expect(ledger.at(-1)?.balanceAfter).toBe(1_250 - PRICE);
    expect(await balanceOf(t.accountId)).toBe(ledger.reduce((sum, row) => sum + row.amount, 0));
  });

  it('ties a charge to the request, key, operation and workspace that made it', async () => {
    const t = await h.tenant({ credits: 1_000 });
    const res = await charged(t);
    const [charge] = (await ledgerOf(t.accountId)).filter((row) => row.kind === 'charge');
    expect(charge).toMatchObject({
      amount: -PRICE,
      requestId: res.headers['x-request-id'],
      apiKeyId: t.apiKeyId,
      operationId: 'createAgentThread',
      workspaceId: t.workspaceId,
    });
  });
});

describe('charging with the effect', () => {
  it('refuses with 402 insufficient_credits and does nothing when the balance is short', async () => {
    const t = await h.tenant({ credits: PRICE - 1 });
    const res = await charged(t);
    expect(res.status).toBe(402);
    expect(errorOf(res)).toEqual({ type: 'insufficient_credits', code: 'insufficient_credits', param: null });
    expect(res.body.error.message).toContain(`needs ${PRICE} credits`);
    expect(await threadsOf(t.workspaceId)).toBe(0);
    expect(await balanceOf(t.accountId)).toBe(PRICE - 1);
    expect((await ledgerOf(t.accountId)).filter((row) => row.kind === 'charge')).toHaveLength(0);
  });

  it('takes the charge back when the effect fails in the same transaction', async () => {
    const t = await h.tenant({ credits: 1_000 });
    chargedCallControl.failAfterCharge = true;
    expect((await charged(t)).status).toBe(500);
    expect(await balanceOf(t.accountId)).toBe(1_000);
    expect((await ledgerOf(t.accountId)).filter((row) => row.kind === 'charge')).toHaveLength(0);
    expect(await threadsOf(t.workspaceId)).toBe(0);
  });

  it('answers 404 and charges nothing when the workspace or project is deleted while the call runs (was a 500 on the ledger foreign key)', async () => {
    const t = await h.tenant({ credits: 1_000 });
    for (const target of ['workspace', 'project'] as const) {
      const workspace = (await h.post('/workspaces', t.key, { name: `Short-lived ${target}` })).body.id as string;
      const project = (await h.post('/projects', t.key, { workspace_id: workspace, name: 'Short-lived' })).body.id as string;
      let release!: () => void;
      chargedCallControl.gate = new Promise((resolve) => (release = resolve));
      const call = h.post('/agent/threads', t.key, { workspace_id: workspace, project_id: project, title: 'Paid' });
      // The call has checked the workspace and project and waits before charging; then either is deleted.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await h.delete(target === 'workspace' ? `/workspaces/${workspace}` : `/projects/${project}`, t.key)).status).toBe(200);
      chargedCallControl.gate = undefined;
      release();
      const res = await call;
      expect(res.status).toBe(404);
      expect(errorOf(res)).toEqual({ type: 'not_found', code: 'resource_not_found', param: target === 'workspace' ? 'workspace_id' : 'project_id' });
    }
    expect(await balanceOf(t.accountId)).toBe(1_000);
    expect((await ledgerOf(t.accountId)).filter((row) => row.kind === 'charge')).toEqual([]);
  });

  it('never overspends under concurrent charges', async () => {
    const t = await h.tenant({ credits: PRICE * 3 + 10 });
    const results = await Promise.all(Array.from({ length: 6 }, () => charged(t)));
    expect(results.filter((res) => res.status === 200)).toHaveLength(3);
    expect(results.filter((res) => res.status === 402)).toHaveLength(3);
    expect(await balanceOf(t.accountId)).toBe(10);
    expect(await threadsOf(t.workspaceId)).toBe(3);
  });
});

describe('usage limits', () => {
  it('refuses a fixed-price call that would pass the workspace limit, with no effect', async () => {
    const t = await h.tenant({ credits: 10_000 });
    expect((await h.patch(`/workspaces/${t.workspaceId}`, t.key, { usage_limit: 2 * PRICE - 1 })).status).toBe(200);
    expect((await charged(t)).status).toBe(200);
    const refused = await charged(t);
    expect(refused.status).toBe(402);
    expect(errorOf(refused)).toEqual({ type: 'insufficient_credits', code: 'usage_limit_exceeded', param: null });
    expect(await threadsOf(t.workspaceId)).toBe(1);
    expect(await balanceOf(t.accountId)).toBe(10_000 - PRICE);
  });

  it('applies the project limit as well as the workspace limit: the stricter wins', async () => {
    const t = await h.tenant({ credits: 10_000 });
    const project = await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Capped', usage_limit: PRICE });
    expect(project.status).toBe(200);
    expect((await charged(t, { project_id: project.body.id })).status).toBe(200);
    const refused = await charged(t, { project_id: project.body.id });
    expect(errorOf(refused).code).toBe('usage_limit_exceeded');
    // Outside the project only the (absent) workspace limit applies.
    expect((await charged(t)).status).toBe(200);
  });

  it('starts afresh in the next billing period', async () => {
    const t = await h.tenant({ credits: 10_000 });
    await h.patch(`/workspaces/${t.workspaceId}`, t.key, { usage_limit: PRICE });
    const saved = h.clock.ms();
    try {
      expect((await charged(t)).status).toBe(200);
      expect((await charged(t)).status).toBe(402);
      h.clock.set(billingPeriod(h.clock.now()).end);
      expect((await charged(t)).status).toBe(200);
    } finally {
      h.clock.set(new Date(saved));
    }
  });

  it('lets a metered call that starts under the limit finish and charge in full, then refuses', async () => {
    const t = await h.tenant({ credits: 10_000 });
    await h.patch(`/workspaces/${t.workspaceId}`, t.key, { usage_limit: 500 });
    const scope = { accountId: t.accountId, workspaceId: t.workspaceId, now: h.clock.now() };
    await checkCredits(h.db, { ...scope, estimate: 100 });
    await h.db.transaction((tx) => chargeCredits(tx, { ...scope, amount: 450, pricing: 'metered', description: 'Tokens' }));
    await checkCredits(h.db, { ...scope, estimate: 100 });
    const overshoot = await h.db.transaction((tx) => chargeCredits(tx, { ...scope, amount: 200, pricing: 'metered', description: 'Tokens' }));
    expect(overshoot.charged).toBe(200);
    await expect(checkCredits(h.db, { ...scope, estimate: 1 })).rejects.toMatchObject({ statusCode: 402, code: 'usage_limit_exceeded' });
  });

  it('takes the balance at most to zero for a metered call that outgrew its estimate', async () => {
    const t = await h.tenant({ credits: 120 });
    const scope = { accountId: t.accountId, workspaceId: t.workspaceId, now: h.clock.now() };
    await checkCredits(h.db, { ...scope, estimate: 100 });
    const result = await h.db.transaction((tx) => chargeCredits(tx, { ...scope, amount: 500, pricing: 'metered', description: 'Tokens' }));
    expect(result).toMatchObject({ charged: 120, balanceAfter: 0 });
    await expect(checkCredits(h.db, { ...scope, estimate: 1 })).rejects.toMatchObject({ code: 'insufficient_credits' });
  });
});

describe('budget alerts', () => {
  it('records the first crossing once and flags every charged response after it', async () => {
    const t = await h.tenant({ credits: 10_000 });
    await h.patch(`/workspaces/${t.workspaceId}`, t.key, { budget_alert: 2 * PRICE });
    const first = await charged(t);
    expect(first.headers['budget-alert']).toBeUndefined();
    const second = await charged(t);
    expect(second.headers['budget-alert']).toBe('workspace');
    const third = await charged(t);
    expect(third.headers['budget-alert']).toBe('workspace');
    const alerts = await h.db.select().from(budgetAlerts).where(eq(budgetAlerts.workspaceId, t.workspaceId));
    expect(alerts).toHaveLength(1);
    // No billing_email on the workspace: the owner is told.
    expect(alerts[0]).toMatchObject({ threshold: 2 * PRICE, creditsUsed: 2 * PRICE, billingEmail: t.email });
  });

  it('names both scopes when the workspace and the project have reached theirs', async () => {
    const t = await h.tenant({ credits: 10_000 });
    await h.patch(`/workspaces/${t.workspaceId}`, t.key, { budget_alert: PRICE, billing_email: 'ap@acme.example' });
    const project = await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Alerted', budget_alert: PRICE });
    const res = await charged(t, { project_id: project.body.id });
    expect(res.headers['budget-alert']).toBe('workspace, project');
    const alerts = await h.db
      .select({ scope: budgetAlerts.scope, email: budgetAlerts.billingEmail })
      .from(budgetAlerts)
      .where(and(eq(budgetAlerts.accountId, t.accountId)))
      .orderBy(sql`${budgetAlerts.scope}`);
    // The project has no billing_email: its alert goes to the workspace's.
    expect(alerts).toEqual([
      { scope: `project:${project.body.id}`, email: 'ap@acme.example' },
      { scope: `workspace:${t.workspaceId}`, email: 'ap@acme.example' },
    ]);
  });

  it('stops flagging when the threshold is raised', async () => {
    const t = await h.tenant({ credits: 10_000 });
    await h.patch(`/workspaces/${t.workspaceId}`, t.key, { budget_alert: PRICE });
    expect((await charged(t)).headers['budget-alert']).toBe('workspace');
    await h.patch(`/workspaces/${t.workspaceId}`, t.key, { budget_alert: 10 * PRICE });
    expect((await charged(t)).headers['budget-alert']).toBeUndefined();
  });
});

describe('auto-recharge', () => {
  it('buys credits when the balance falls to the threshold, as a ledger entry', async () => {
    const t = await h.tenant({ credits: PRICE + 50 });
    await h.db.update(accounts).set({ autoRechargeEnabled: true, autoRechargeThreshold: 100, autoRechargeCredits: 1_000 }).where(eq(accounts.id, t.accountId));
    expect((await charged(t)).status).toBe(200);
    expect(await balanceOf(t.accountId)).toBe(50 + 1_000);
    const kinds = (await ledgerOf(t.accountId)).map((row) => row.kind);
    expect(kinds).toEqual(['grant', 'charge', 'auto_recharge']);
  });
});

describe('usage counters', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const reconcileWithAdmin = async () => {
    const lines: string[] = [];
    const run = runAdmin(['usage', 'reconcile'], h.db, (line) => lines.push(line));
    return {
      outcome: await run.then(
        () => 'ok',
        (err: Error) => err.message,
      ),
      lines,
    };
  };

  it('follow every charge and refund per scope and day, equal the ledger, and the migration rebuilds them', async () => {
    const t = await h.tenant({ credits: 10_000 });
    const project = await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Counted' });
    const saved = h.clock.ms();
    try {
      expect((await charged(t)).status).toBe(200);
      expect((await charged(t, { project_id: project.body.id })).status).toBe(200);
      h.clock.advance(DAY);
      expect((await charged(t, { project_id: project.body.id })).status).toBe(200);
      const [first] = (await ledgerOf(t.accountId)).filter((row) => row.kind === 'charge');
      await h.db.transaction((tx) => refundCredits(tx, { chargeLedgerId: first!.id, description: 'Job failed', now: h.clock.now() }));
      // Charged without an API key: counts for the account, not for `account_keys`.
      await h.db.transaction((tx) =>
        chargeCredits(tx, { accountId: t.accountId, workspaceId: t.workspaceId, amount: 7, description: 'Console', now: h.clock.now() }),
      );

      const since = billingPeriod(h.clock.now()).start;
      expect(await creditsUsed(h.db, 'account', t.accountId, since)).toBe(2 * PRICE + 7);
      expect(await creditsUsed(h.db, 'account_keys', t.accountId, since)).toBe(2 * PRICE);
      expect(await creditsUsed(h.db, 'workspace', t.workspaceId, since)).toBe(2 * PRICE + 7);
      expect(await creditsUsed(h.db, 'project', project.body.id, since)).toBe(2 * PRICE);
      expect(await creditsUsed(h.db, 'api_key', t.apiKeyId, since)).toBe(2 * PRICE);
      // The refund lands on its own day: the first day nets to the one project charge.
      expect(await creditsUsed(h.db, 'account', t.accountId, new Date(saved), new Date(saved + DAY))).toBe(2 * PRICE);
      expect((await h.get('/usage', t.key)).body.credits.used).toBe(2 * PRICE + 7);
      expect((await h.get('/usage', t.key)).body.api_requests.credits_used).toBe(2 * PRICE);

      expect(await reconcileUsageCounters(h.db)).toEqual([]);
      expect(await reconcileWithAdmin()).toEqual({ outcome: 'ok', lines: ['usage counters match the ledger', 'counters match their rows'] });

      // A counter that drifts from the ledger is reported, by scope and day.
      await h.db
        .update(creditUsageDaily)
        .set({ credits: sql`${creditUsageDaily.credits} + 1` })
        .where(and(eq(creditUsageDaily.scope, 'project'), eq(creditUsageDaily.scopeId, project.body.id)));
      const drift = await reconcileUsageCounters(h.db);
      expect(drift).toHaveLength(2);
      expect(drift.map((row) => [row.scope, row.scopeId, row.counter - row.ledger])).toEqual([
        ['project', project.body.id, 1],
        ['project', project.body.id, 1],
      ]);
      const admin = await reconcileWithAdmin();
      expect(admin.outcome).toBe('2 usage counters differ from the ledger');
      expect(admin.lines[0]).toContain(`project ${project.body.id}`);

      // A counter that names another account than its ledger rows (the console would show it there) is
      // reported twice: missing from the right account, present in the wrong one.
      const other = await h.tenant();
      await h.db
        .update(creditUsageDaily)
        .set({ accountId: other.accountId, credits: sql`${creditUsageDaily.credits} - 1` })
        .where(and(eq(creditUsageDaily.scope, 'project'), eq(creditUsageDaily.scopeId, project.body.id)));
      const misplaced = (await reconcileUsageCounters(h.db)).map((row) => [row.scope, row.scopeId, row.day, row.counter - row.ledger]);
      expect(misplaced.sort()).toEqual(
        [...new Set(misplaced.map((row) => row[2]))]
          .flatMap((day) => [
            ['project', project.body.id, day, -PRICE],
            ['project', project.body.id, day, PRICE],
          ])
          .sort(),
      );
      expect(misplaced).toHaveLength(4);

      // The migration's backfill (its last statement) rebuilds the counters, with their accounts, from the ledger alone.
      const migrations = usageCountersBackfills();
      await h.db.delete(creditUsageDaily);
      for (const backfill of migrations) await h.db.execute(sql.raw(backfill));
      expect(await reconcileUsageCounters(h.db)).toEqual([]);
      expect(await creditsUsed(h.db, 'project', project.body.id, since)).toBe(2 * PRICE);
    } finally {
      h.clock.set(new Date(saved));
    }
  });
});

describe('counters of rows', () => {
  const reconcileWithAdmin = async () => {
    const lines: string[] = [];
    const outcome = await runAdmin(['usage', 'reconcile'], h.db, (line) => lines.push(line)).then(
      () => 'ok',
      (err: Error) => err.message,
    );
    return { outcome, lines };
  };

  it('equal a recount of their rows; each drifted counter is reported, and the migration rebuilds them', async () => {
    const t = await h.tenant({ credits: 10_000 });
    const project = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Counted' })).body.id;
    expect((await charged(t, { project_id: project })).status).toBe(200);
    const generation = { app_id: 'app_linkedin_post', input_data: { topic: 'Cold brew', post_length: 'short' }, project_id: project };
    expect((await h.post('/generations', t.key, generation)).status).toBe(200);
    expect((await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: 'counted@x.example', role: 'viewer' })).status).toBe(200);
    const now = h.clock.now();
    const folder = (await h.post('/folders', t.key, { workspace_id: t.workspaceId, name: 'Counted' })).body.id;
    await insertFileRow(h.db, { id: `file_rc${now.getTime()}`, workspaceId: t.workspaceId, name: 'a.pdf', sizeBytes: 1_234, createdAt: now, updatedAt: now });
    await insertFileRow(h.db, {
      id: `file_rf${now.getTime()}`,
      workspaceId: t.workspaceId,
      folderId: folder,
      name: 'b.pdf',
      sizeBytes: 0,
      createdAt: now,
      updatedAt: now,
    });
    const meetingId = `mtg_rc${now.getTime()}`;
    await h.db.insert(meetings).values({
      id: meetingId,
      workspaceId: t.workspaceId,
      title: 'Call',
      source: 'import',
      botName: 'Persona Notetaker',
      joinType: 'immediate',
      joinAt: now,
      completedAt: now,
      status: 'done',
      statusChanges: [],
      analysisStatus: 'completed',
      schemaIds: [],
      recordedSeconds: 150,
      transcribed: 1,
      createdAt: now,
      updatedAt: now,
    });
    await countTranscriptionMinutes(h.db, meetingId);
    const day = now.toISOString().slice(0, 10);
    const ours = (mismatches: CountMismatch[]) => mismatches.filter((m) => [project, folder, t.workspaceId, t.accountId].includes(m.id.split(' ')[0]!));

    expect(await reconcileCounts(h.db)).toEqual([]);
    expect(await reconcileWithAdmin()).toEqual({ outcome: 'ok', lines: ['usage counters match the ledger', 'counters match their rows'] });

    // Every kind of counter drifts; each is reported with the recount and the stored value.
    await h.db
      .update(projects)
      .set({ agentThreadCount: sql`${projects.agentThreadCount} + 1`, generationCount: 0 })
      .where(eq(projects.id, project));
    await h.db
      .update(workspaces)
      .set({ memberCount: 5, projectCount: sql`${workspaces.projectCount} - 1`, agentThreadCount: 0 })
      .where(eq(workspaces.id, t.workspaceId));
    await h.db.update(accounts).set({ storedBytes: 1_000 }).where(eq(accounts.id, t.accountId));
    await h.db.update(folders).set({ fileCount: 3 }).where(eq(folders.id, folder));
    await h.db.update(transcriptionUsageDaily).set({ minutes: 2 }).where(eq(transcriptionUsageDaily.accountId, t.accountId));
    await h.db.insert(transcriptionUsageDaily).values({ accountId: t.accountId, day: '2026-01-15', minutes: 4 });
    expect(ours(await reconcileCounts(h.db))).toEqual([
      { counter: 'accounts.stored_bytes', id: t.accountId, counted: 1_234, stored: 1_000 },
      { counter: 'folders.file_count', id: folder, counted: 1, stored: 3 },
      { counter: 'projects.agent_thread_count', id: project, counted: 1, stored: 2 },
      { counter: 'projects.generation_count', id: project, counted: 1, stored: 0 },
      { counter: 'transcription_usage_daily.minutes', id: `${t.accountId} 2026-01-15`, counted: 0, stored: 4 },
      { counter: 'transcription_usage_daily.minutes', id: `${t.accountId} ${day}`, counted: 3, stored: 2 },
      { counter: 'workspaces.agent_thread_count', id: t.workspaceId, counted: 1, stored: 0 },
      { counter: 'workspaces.member_count', id: t.workspaceId, counted: 2, stored: 5 },
      { counter: 'workspaces.project_count', id: t.workspaceId, counted: 1, stored: 0 },
    ]);
    const admin = await reconcileWithAdmin();
    expect(admin.outcome).toBe('9 counters differ from their rows');
    expect(admin.lines).toContain(`projects.agent_thread_count ${project}: counted 1, counter 2`);

    // The migration's backfill builds them again from the rows alone.
    for (const statement of countsRebuild()) await h.db.execute(sql.raw(statement));
    expect(await reconcileCounts(h.db)).toEqual([]);
    expect((await h.get(`/projects/${project}`, t.key)).body).toMatchObject({ agent_thread_count: 1, generation_count: 1 });
    expect((await h.get(`/folders/${folder}?include_files=false`, t.key)).body.file_count).toBe(1);
    expect((await h.get('/usage', t.key)).body.transcription.minutes_used).toBe(3);
  });
});
