import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runAdmin, UsageError } from '../src/admin/cli.js';
import { generateApiKey, insertApiKey } from '../src/auth/api-keys.js';
import { apiKeys } from '../src/db/schema/index.js';
import { errorOf, useHarness } from './support/harness.js';

// The admin CLI creates accounts, workspaces and keys with a rate-limit tier and a
// credit balance, lists and revokes keys. Runs the command function on the suite's database.

const h = useHarness();

async function admin(...argv: string[]): Promise<string> {
  const lines: string[] = [];
  await runAdmin(argv, h.db, (line) => lines.push(line));
  return lines.join('\n');
}

const field = (output: string, pattern: RegExp) => {
  const match = pattern.exec(output);
  if (!match?.[1]) throw new Error(`no ${pattern} in:\n${output}`);
  return match[1];
};

describe('admin CLI', () => {
  it('creates an account with a tier, credits, a workspace and a working key', async () => {
    const out = await admin('accounts', 'create', '--email', 'ops@cli.example', '--tier', 'basic', '--credits', '1234', '--workspace', 'Ops');
    const key = field(out, /^\s+(svc_live_[A-Za-z0-9]{40})$/m);
    const accountId = field(out, /^account\s+(acct_\S+)/m);
    const workspaces = await h.get('/workspaces', key);
    expect(workspaces.body.data.map((w: { name: string }) => w.name)).toEqual(['Ops']);
    expect(workspaces.headers['ratelimit-limit']).toBe('120');
    const usage = await h.get('/usage', key);
    expect(usage.body.credits.remaining).toBe(1234);
    expect(await admin('accounts', 'list')).toContain(`${accountId}  basic`);
  });

  it('creates further keys and workspaces, grants credits and changes the tier', async () => {
    const out = await admin('accounts', 'create', '--email', 'team@cli.example');
    const accountId = field(out, /^account\s+(acct_\S+)/m);
    const key = field(await admin('keys', 'create', accountId, '--name', 'CI'), /^\s+(svc_live_\S+)$/m);
    expect(field(await admin('workspaces', 'create', accountId, '--name', 'Second', '--type', 'enterprise'), /^workspace (ws_\S+)/m)).toMatch(/^ws_/);
    expect(await admin('credits', 'grant', accountId, '--amount', '500')).toContain('balance 500');
    await admin('accounts', 'set-tier', accountId, '--tier', 'enterprise');
    const res = await h.get('/workspaces', key);
    expect(res.body.data).toHaveLength(2);
    expect(res.headers['ratelimit-limit']).toBe('600');
  });

  it('lists and revokes keys; a revoked key is refused at once', async () => {
    const out = await admin('accounts', 'create', '--email', 'revoke@cli.example');
    const accountId = field(out, /^account\s+(acct_\S+)/m);
    const keyId = field(out, /^key\s+(key_\S+)/m);
    const key = field(out, /^\s+(svc_live_\S+)$/m);
    const listed = await admin('keys', 'list', accountId);
    expect(listed).toContain(keyId);
    expect(listed).toContain(`${key.slice(0, 13)}…`);
    expect(listed).not.toContain(key);
    expect(await admin('keys', 'revoke', keyId)).toBe(`revoked ${keyId}`);
    expect(await admin('keys', 'list', accountId)).toContain('revoked');
    expect(errorOf(await h.get('/workspaces', key)).code).toBe('invalid_api_key');
    await expect(admin('keys', 'revoke', keyId)).rejects.toThrow(UsageError);
  });

  it('lists the keys people made and the live browser keys, not one line per console page load ever opened', async () => {
    const out = await admin('accounts', 'create', '--email', 'browser@cli.example');
    const accountId = field(out, /^account\s+(acct_\S+)/m);
    const keyId = field(out, /^key\s+(key_\S+)/m);
    const [owner] = await h.db.select({ userId: apiKeys.userId }).from(apiKeys).where(eq(apiKeys.id, keyId));
    const now = new Date();
    const browserKey = (consoleSessionId: string, expiresAt: Date) =>
      insertApiKey(h.db, { secret: generateApiKey(), accountId, userId: owner!.userId, name: 'Console (browser)', now, consoleSessionId, expiresAt });
    const live = await browserKey('cs_live', new Date(now.getTime() + 3_600_000));
    const expired = await browserKey('cs_expired', new Date(now.getTime() - 1000));
    const revoked = await browserKey('cs_revoked', new Date(now.getTime() + 3_600_000));
    await h.db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, revoked));
    const listed = await admin('keys', 'list', accountId);
    expect([keyId, live, expired, revoked].map((id) => listed.includes(id))).toEqual([true, true, false, false]);
  });

  it('explains bad input', async () => {
    await expect(admin('accounts', 'create')).rejects.toThrow('--email is required');
    await expect(admin('accounts', 'create', '--email', 'x@y.example', '--tier', 'gold')).rejects.toThrow(/--tier must be one of/);
    await expect(admin('credits', 'grant', 'acct_x', '--amount=-5')).rejects.toThrow(/whole number/);
    await expect(admin('teleport')).rejects.toThrow(/Unknown command/);
    await expect(admin('keys', 'list', '--bogus')).rejects.toThrow(UsageError);
  });

  it('adds, lists and removes news feeds for the poll job', async () => {
    await expect(admin('news', 'add-feed', 'ftp://feeds.example/x')).rejects.toThrow(/http/);
    expect(await admin('news', 'add-feed', 'https://feeds.example/wire.xml')).toContain('will be polled');
    await admin('news', 'add-feed', 'https://feeds.example/wire.xml');
    expect((await admin('news', 'list-feeds')).split('\n').filter((line) => line.startsWith('https://feeds.example/wire.xml  not polled yet'))).toHaveLength(1);
    expect(await admin('news', 'remove-feed', 'https://feeds.example/wire.xml')).toBe('removed https://feeds.example/wire.xml');
    await expect(admin('news', 'remove-feed', 'https://feeds.example/wire.xml')).rejects.toThrow(/No feed/);
  });

  it('runs the upkeep autovacuum would do where none runs (PGlite), and says it has nothing to do on PostgreSQL', async () => {
    // 500 feeds added and removed: dead rows past autovacuum's threshold for a table that small.
    await h.db.execute(sql`insert into news_feeds (url, created_at) select 'https://feeds.example/churn-' || n, now() from generate_series(1, 500) as n`);
    await h.db.execute(sql`delete from news_feeds where url like 'https://feeds.example/churn-%'`);
    const first = await admin('db', 'upkeep');
    if (h.database.driver !== 'pglite') {
      expect(first).toBe('autovacuum is not missing here (PostgreSQL): nothing to do');
      return;
    }
    expect(first).toMatch(/^vacuumed and analysed public\.news_feeds$/m);
    expect(first).toMatch(/^\d+ tables done$/m);
    // Done: the table is not due again (the analyse's own writes may make a catalog due).
    expect(await admin('db', 'upkeep')).not.toContain('news_feeds');
  });
});
