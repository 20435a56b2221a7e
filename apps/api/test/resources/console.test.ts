import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/admin/cli.js';
import { reconcileUsageCounters, usageCountersBackfills } from '../../src/billing/reconcile.js';
import { creditLedger, creditUsageDaily } from '../../src/db/schema/index.js';
import { rowsOf } from '../../src/db/sql.js';
import { hashPassword, passwordCost, verifyPassword } from '../../src/resources/console/passwords.js';
import { errorOf, type ApiResponse, type Harness, useHarness } from '../support/harness.js';

// The console's own operations (DECISIONS.md, Console): a one-time setup link from the admin CLI, sign-in
// with a scrypt-hashed password, an httpOnly SameSite cookie plus a CSRF header, browser keys bound to the
// session, and Developer → API keys (create once, list, revoke, rotate) whose revocation ends access at once.

const h = useHarness();
// Production's N (2^17) costs up to 2 s per sign-in on a shared CI machine; the flows are the same at 2^12.
passwordCost.N = 2 ** 12;
const PASSWORD = 'cold-brew-at-dawn-2026';

async function admin(...argv: string[]): Promise<string> {
  return adminOn(h, ...argv);
}

async function adminOn(harness: Harness, ...argv: string[]): Promise<string> {
  const lines: string[] = [];
  await runAdmin(argv, harness.db, (line) => lines.push(line), 'https://console.example/api/v1');
  return lines.join('\n');
}

/** The `persona_session=…` pair of a response's Set-Cookie, as a browser would send it back. */
function cookieOf(response: ApiResponse): { cookie: string; attributes: string } {
  const header = String(response.headers['set-cookie']);
  const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
  return { cookie: pair, attributes: attributes.join('; ') };
}

interface Member {
  cookie: string;
  csrf: string;
  session: any;
}

/** A new account whose owner opens the CLI's setup link and chooses a password. */
async function newOwner(): Promise<Member & { tenant: Awaited<ReturnType<typeof h.tenant>> }> {
  const tenant = await h.tenant();
  const out = await admin('console', 'invite', tenant.accountId);
  const token = /#setup=([A-Za-z0-9]+)/.exec(out)?.[1];
  expect(out).toContain('https://console.example/console/#setup=');
  const response = await h.post('/console/setup', undefined, { token, password: PASSWORD });
  expect(response.status).toBe(200);
  return { tenant, cookie: cookieOf(response).cookie, csrf: response.body.csrf_token, session: response.body };
}

const asMember = (member: Member, withCsrf = true) => ({ cookie: member.cookie, ...(withCsrf ? { 'x-csrf-token': member.csrf } : {}) });

describe('console sign-in', () => {
  it('hashes passwords with scrypt at OWASP parameters, salted', async () => {
    const hash = await hashPassword(PASSWORD, { N: 2 ** 17, r: 8, p: 1 });
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(await verifyPassword(PASSWORD, hash)).toBe(true);
    const cheap = await hashPassword(PASSWORD);
    expect(await verifyPassword(`${PASSWORD}x`, cheap)).toBe(false);
    expect(await hashPassword(PASSWORD)).not.toBe(cheap);
  });

  it('sets a password from the one-time link, once, and signs in with an httpOnly SameSite cookie', async () => {
    const tenant = await h.tenant();
    const token = /#setup=([A-Za-z0-9]+)/.exec(await admin('console', 'invite', tenant.accountId))?.[1];
    const setup = await h.post('/console/setup', undefined, { token, password: PASSWORD });
    expect(setup.status).toBe(200);
    expect(setup.body).toMatchObject({
      object: 'console.session',
      role: 'owner',
      user: { id: tenant.userId, email: tenant.email },
      account: { id: tenant.accountId },
    });
    const { cookie, attributes } = cookieOf(setup);
    expect(cookie).toMatch(/^persona_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toContain('HttpOnly');
    expect(attributes).toContain('SameSite=Strict');
    expect(attributes).toContain('Path=/api/v1/console');
    expect(attributes).not.toContain('Secure');

    // The link works once.
    const again = await h.post('/console/setup', undefined, { token, password: 'another-password-here' });
    expect(again.status).toBe(401);
    expect(errorOf(again).code).toBe('invalid_credentials');

    // A wrong password and an unknown address are the same 401; the right one signs in, Secure behind https.
    const wrong = await h.post('/console/session', undefined, { email: tenant.email, password: 'not-the-password-1' });
    const unknown = await h.post('/console/session', undefined, { email: 'nobody@nowhere.example', password: PASSWORD });
    expect([wrong.status, errorOf(wrong).code]).toEqual([401, 'invalid_credentials']);
    expect([unknown.status, unknown.body.error.message]).toEqual([401, wrong.body.error.message]);
    const signedIn = await h.post('/console/session', undefined, { email: tenant.email.toUpperCase(), password: PASSWORD }, { 'x-forwarded-proto': 'https' });
    expect(signedIn.status).toBe(200);
    expect(cookieOf(signedIn).attributes).toContain('Secure');

    const read = await h.get('/console/session', undefined, { cookie: cookieOf(signedIn).cookie });
    expect(read.status).toBe(200);
    expect(read.body.csrf_token).toBe(signedIn.body.csrf_token);
    expect(read.headers['ratelimit-limit']).toBe('120');
    const none = await h.get('/console/session');
    expect([none.status, errorOf(none).code]).toEqual([401, 'invalid_session']);
    // An API key is not a session.
    expect((await h.get('/console/session', tenant.key)).status).toBe(401);
  });

  it('limits sign-in attempts per e-mail address', async () => {
    const email = `guess.${process.pid}@console.example`;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      statuses.push((await h.post('/console/session', undefined, { email, password: `wrong-password-${attempt}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const refused = await h.post('/console/session', undefined, { email, password: 'wrong-password-x' });
    expect(errorOf(refused).code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('console limits under RATE_LIMIT_MULTIPLIER', () => {
  const loadTest = useHarness({ services: { rateLimitMultiplier: 4 } });

  it("multiplies the console's requests per client, never its sign-in attempts", async () => {
    const tenant = await loadTest.tenant();
    const token = /#setup=([A-Za-z0-9]+)/.exec(await adminOn(loadTest, 'console', 'invite', tenant.accountId))?.[1];
    const setup = await loadTest.post('/console/setup', undefined, { token, password: PASSWORD });
    expect(setup.status).toBe(200);
    const read = await loadTest.get('/console/session', undefined, { cookie: cookieOf(setup).cookie });
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-limit']).toBe(String(120 * 4));
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      statuses.push((await loadTest.post('/console/session', undefined, { email: tenant.email, password: `wrong-password-${attempt}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe('Developer → API keys', () => {
  it('creates a key shown once, refuses changes without the CSRF token, and lists prefix, creator and last use', async () => {
    const owner = await newOwner();
    const noCsrf = await h.post('/console/api-keys', undefined, { name: 'Backend' }, asMember(owner, false));
    expect([noCsrf.status, errorOf(noCsrf).code, errorOf(noCsrf).param]).toEqual([403, 'permission_denied', 'X-CSRF-Token']);
    const wrongCsrf = await h.post('/console/api-keys', undefined, { name: 'Backend' }, { cookie: owner.cookie, 'x-csrf-token': 'x'.repeat(43) });
    expect(wrongCsrf.status).toBe(403);

    const created = await h.post('/console/api-keys', undefined, { name: 'Backend' }, asMember(owner));
    expect(created.status).toBe(200);
    const { secret, api_key: key } = created.body;
    expect(key).toMatchObject({
      name: 'Backend',
      key_prefix: secret.slice(0, 13),
      scope: 'all',
      created_by: { email: owner.tenant.email },
      last_used_at: null,
      revoked_at: null,
    });

    expect((await h.get('/workspaces', secret)).status).toBe(200);
    const listed = await h.get('/console/api-keys', undefined, asMember(owner, false));
    expect(listed.status).toBe(200);
    const row = listed.body.data.find((k: { id: string }) => k.id === key.id);
    expect(row.last_used_at).toBe(h.clock.now().toISOString());
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    // The tenant's CLI key is listed too; nothing of another account is.
    expect(listed.body.data.map((k: { id: string }) => k.id).sort()).toEqual([key.id, owner.tenant.apiKeyId].sort());
  });

  it('revokes a key: the next request with it is refused, even though it was cached', async () => {
    const owner = await newOwner();
    const { secret, api_key: key } = (await h.post('/console/api-keys', undefined, { name: 'Temp' }, asMember(owner))).body;
    expect((await h.get('/models', secret)).status).toBe(200);
    const revoked = await h.post(`/console/api-keys/${key.id}/revoke`, undefined, undefined, asMember(owner));
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBe(h.clock.now().toISOString());
    const refused = await h.get('/models', secret);
    expect([refused.status, errorOf(refused).code]).toEqual([401, 'invalid_api_key']);
    expect((await h.post(`/console/api-keys/${key.id}/revoke`, undefined, undefined, asMember(owner))).status).toBe(409);

    // Another account's key is not found, and stays usable.
    const other = await newOwner();
    const foreign = await h.post(`/console/api-keys/${other.tenant.apiKeyId}/revoke`, undefined, undefined, asMember(owner));
    expect(foreign.status).toBe(404);
    expect((await h.get('/models', other.tenant.key)).status).toBe(200);
  });

  it('rotates a key: the old secret stops working, the new one works and keeps the name', async () => {
    const owner = await newOwner();
    const before = await h.get('/models', owner.tenant.key);
    expect(before.status).toBe(200);
    const rotated = await h.post(`/console/api-keys/${owner.tenant.apiKeyId}/rotate`, undefined, undefined, asMember(owner));
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ replaces: owner.tenant.apiKeyId, api_key: { name: 'Test key', revoked_at: null } });
    expect((await h.get('/models', owner.tenant.key)).status).toBe(401);
    expect((await h.get('/models', rotated.body.secret)).status).toBe(200);
    expect((await h.post(`/console/api-keys/${owner.tenant.apiKeyId}/rotate`, undefined, undefined, asMember(owner))).status).toBe(409);
  });
});

describe('browser keys and sign-out', () => {
  it('gives the session a bearer key that is not listed, and ends it at sign-out', async () => {
    const owner = await newOwner();
    const first = await h.post('/console/session/browser-key', undefined, undefined, asMember(owner));
    expect(first.status).toBe(200);
    expect((await h.get('/usage', first.body.key)).status).toBe(200);
    // A new one replaces the previous.
    const second = await h.post('/console/session/browser-key', undefined, undefined, asMember(owner));
    expect((await h.get('/usage', first.body.key)).status).toBe(401);
    expect((await h.get('/usage', second.body.key)).status).toBe(200);
    const listed = await h.get('/console/api-keys', undefined, asMember(owner, false));
    expect(listed.body.data.map((k: { name: string }) => k.name)).not.toContain('Console session');

    expect((await h.delete('/console/session', undefined, asMember(owner, false))).status).toBe(403);
    const out = await h.delete('/console/session', undefined, asMember(owner));
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^persona_session=; Max-Age=0/);
    expect((await h.get('/usage', second.body.key)).status).toBe(401);
    expect((await h.get('/console/session', undefined, asMember(owner))).status).toBe(401);
  });

  it('stops a browser key when its session expires', async () => {
    const owner = await newOwner();
    const { key } = (await h.post('/console/session/browser-key', undefined, undefined, asMember(owner))).body;
    expect((await h.get('/models', key)).status).toBe(200);
    const start = h.clock.ms();
    try {
      h.clock.advance(12 * 60 * 60 * 1000 + 1000);
      expect((await h.get('/models', key)).status).toBe(401);
      expect((await h.get('/console/session', undefined, asMember(owner))).status).toBe(401);
    } finally {
      h.clock.set(new Date(start));
    }
  });
});

describe('usage breakdown for the charts', () => {
  it("sums the period's credits by day, feature, workspace, project and key, leaving out other periods and accounts", async () => {
    const owner = await newOwner();
    const other = await newOwner();
    const personas = await h.get('/personas?limit=1', owner.tenant.key);
    const answered = await h.post('/responses', owner.tenant.key, {
      model: 'service-1',
      persona_id: personas.body.data[0].id,
      input: 'Would you pay $18 per seat?',
    });
    expect(answered.status).toBe(200);
    const answerCredits = answered.body.usage.credits_used as number;
    expect((await h.post('/responses', other.tenant.key, { model: 'service-1', persona_id: personas.body.data[0].id, input: 'Hi' })).status).toBe(200);
    // A video analysis charged and half refunded two days ago in the tenant's workspace, and a charge of last month.
    const row = (id: string, amount: number, kind: 'charge' | 'refund', createdAt: Date) => ({
      id,
      accountId: owner.tenant.accountId,
      workspaceId: owner.tenant.workspaceId,
      kind,
      amount,
      balanceAfter: 0,
      operationId: 'createVideoAnalysis',
      description: 'fixture',
      createdAt,
    });
    const twoDaysAgo = new Date(h.clock.ms() - 2 * 86_400_000);
    await h.db
      .insert(creditLedger)
      .values([
        row(`txn_va${process.pid}a`, -100, 'charge', twoDaysAgo),
        row(`txn_va${process.pid}b`, 40, 'refund', twoDaysAgo),
        row(`txn_va${process.pid}c`, -999, 'charge', new Date('2026-10-20T10:00:00.000Z')),
      ]);
    // The counters those ledger rows would have written, rebuilt from the ledger as the migrations do.
    await h.db.delete(creditUsageDaily);
    for (const backfill of usageCountersBackfills()) await h.db.execute(sql.raw(backfill));

    const breakdown = await h.get('/console/usage', undefined, asMember(owner, false));
    expect(breakdown.status).toBe(200);
    const today = h.clock.now().toISOString().slice(0, 10);
    expect(breakdown.body.total_credits).toBe(answerCredits + 60);
    expect(breakdown.body.by_day).toEqual([
      { id: twoDaysAgo.toISOString().slice(0, 10), name: null, credits: 60 },
      { id: today, name: null, credits: answerCredits },
    ]);
    expect(breakdown.body.by_feature).toEqual(
      expect.arrayContaining([
        { id: 'createVideoAnalysis', name: null, credits: 60 },
        { id: 'createResponse', name: null, credits: answerCredits },
      ]),
    );
    // The fixture's 60 credits, plus the answer's when /responses attributes it to the key's workspace.
    const [workspace] = breakdown.body.by_workspace;
    expect(breakdown.body.by_workspace).toHaveLength(1);
    expect(workspace).toMatchObject({ id: owner.tenant.workspaceId, name: 'Home' });
    expect([60, 60 + answerCredits]).toContain(workspace.credits);
    expect(breakdown.body.by_key).toContainEqual({ id: owner.tenant.apiKeyId, name: 'Test key', credits: answerCredits });
    expect(JSON.stringify(breakdown.body)).not.toContain(other.tenant.apiKeyId);
  });
});

// Last in the file: it takes the database back to before migration 0026 (and its index) and runs 0026.
describe('migration 0026', () => {
  it('rebuilds the usage counters from the ledger with their accounts: the breakdown reads the same, and charges after it name their account', async () => {
    // The console's per-client limit counts every sign-in of this file: a fresh window.
    h.clock.advance(61_000);
    const owner = await newOwner();
    const other = { tenant: await h.tenant() };
    const generate = (key: string, projectId: string | null) =>
      h.post('/generations', key, {
        app_id: 'app_linkedin_post',
        input_data: { topic: 'Cold brew', post_length: 'short' },
        ...(projectId ? { project_id: projectId } : {}),
      });
    const project = async (name: string) => (await h.post('/projects', owner.tenant.key, { workspace_id: owner.tenant.workspaceId, name })).body.id as string;
    const kept = await project('Kept');
    const dropped = await project('Dropped');
    for (const [key, projectId] of [
      [owner.tenant.key, kept],
      [owner.tenant.key, dropped],
      [other.tenant.key, null],
    ] as const)
      expect((await generate(key, projectId)).status).toBe(200);
    // A deleted project's credits stay the account's, unassigned to any project.
    expect((await h.delete(`/projects/${dropped}`, owner.tenant.key)).status).toBe(200);
    const breakdown = async () => (await h.get('/console/usage', undefined, asMember(owner, false))).body;
    const before = await breakdown();
    expect(before.by_project.map((group: { id: string | null }) => group.id).sort()).toEqual([kept, null].sort());
    const counterAccounts = async () =>
      rowsOf<{ scope: string; scope_id: string; account_id: string }>(await h.db.execute(sql`select scope, scope_id, account_id from credit_usage_daily`));

    await h.db.execute(sql.raw('alter table credit_usage_daily drop column account_id'));
    const migration = readFileSync(new URL('../../drizzle/0026_account_usage_counters.sql', import.meta.url), 'utf8');
    await h.db.transaction(async (tx) => {
      for (const statement of migration.split('--> statement-breakpoint')) await tx.execute(sql.raw(statement));
    });

    // Every counter names its account, the one its ledger rows name, and equals the ledger's sum.
    const rebuilt = await counterAccounts();
    expect(
      rebuilt
        .filter((row) => row.scope_id.startsWith(owner.tenant.accountId) || row.scope_id === kept)
        .every((row) => row.account_id === owner.tenant.accountId),
    ).toBe(true);
    expect(rebuilt.filter((row) => row.scope_id === other.tenant.workspaceId).map((row) => row.account_id)).toEqual([other.tenant.accountId]);
    expect(rebuilt.some((row) => row.scope_id === dropped)).toBe(false);
    expect(await reconcileUsageCounters(h.db)).toEqual([]);
    const [column] = rowsOf<{ is_nullable: string }>(
      await h.db.execute(sql`select is_nullable from information_schema.columns where table_name = 'credit_usage_daily' and column_name = 'account_id'`),
    );
    expect(column?.is_nullable).toBe('NO');
    expect(await breakdown()).toEqual(before);

    // The charge function the migration replaced writes the account on each counter row it adds.
    const charged = await generate(owner.tenant.key, kept);
    expect(charged.status).toBe(200);
    expect(await reconcileUsageCounters(h.db)).toEqual([]);
    const after = await breakdown();
    expect(after.total_credits).toBe(before.total_credits + charged.body.usage.credits_used);
    expect(after.by_project.find((group: { id: string | null }) => group.id === kept).credits).toBe(
      before.by_project.find((group: { id: string | null }) => group.id === kept).credits + charged.body.usage.credits_used,
    );
  });
});
