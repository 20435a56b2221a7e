// Authenticated keys are cached (auth/api-keys.ts) and a revocation or tier change is honoured at once by
// every instance: two apps on one database (on PostgreSQL through two separate connection pools, as two
// processes would be), the change made through the admin functions the CLI uses.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey, setTier } from '../src/admin/accounts.js';
import { announceApiKeysChanged } from '../src/auth/api-keys.js';
import { openDatabase, type DatabaseHandle } from '../src/db/client.js';
import { apiKeys } from '../src/db/schema/index.js';
import { eventually } from './support/ai.js';
import { Harness, useHarness } from './support/harness.js';

const h = useHarness();
let other: Harness;
let otherDatabase: DatabaseHandle | null = null;

beforeAll(async () => {
  const connection = h.database.connection;
  // PGlite is one process's database: the second app shares its handle (notifications still go through it).
  otherDatabase = connection.driver === 'postgres' ? await openDatabase({ driver: 'postgres', url: connection.url, poolSize: 2 }) : null;
  other = await Harness.create({ database: otherDatabase ?? h.database });
});
afterAll(async () => {
  await other?.close();
  await otherDatabase?.close();
});

const statusOn = async (harness: Harness, key: string) => (await harness.get('/workspaces', key)).status;

describe('the API key cache', () => {
  it('serves a known key without a lookup until a change is announced, then looks it up again', async () => {
    const t = await h.tenant();
    expect([await statusOn(h, t.key), await statusOn(other, t.key)]).toEqual([200, 200]);
    // Changed behind the cache's back (no announcement): both instances still trust what they cached.
    await h.db
      .update(apiKeys)
      .set({ keyHash: '0'.repeat(64) })
      .where(eq(apiKeys.id, t.apiKeyId));
    expect([await statusOn(h, t.key), await statusOn(other, t.key)]).toEqual([200, 200]);
    await announceApiKeysChanged(h.db, t.accountId);
    await eventually(async () => (await statusOn(h, t.key)) === 401 && (await statusOn(other, t.key)) === 401);
  });

  it('honours a revocation on every instance at once', async () => {
    const t = await h.tenant();
    const { key, id } = await createApiKey(h.db, { accountId: t.accountId, name: 'to revoke' });
    expect([await statusOn(h, key), await statusOn(other, key)]).toEqual([200, 200]);
    const revokedAt = Date.now();
    expect(await revokeApiKey(otherDatabase?.db ?? h.db, id)).toBe(true);
    await eventually(async () => (await statusOn(h, key)) === 401 && (await statusOn(other, key)) === 401);
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
    // Another key of the account is unaffected.
    expect(await statusOn(h, t.key)).toBe(200);
  });

  it('applies a tier change to the rate limit from the next request on every instance', async () => {
    const t = await h.tenant({ tier: 'starter' });
    expect((await h.get('/workspaces', t.key)).headers['ratelimit-limit']).toBe('60');
    expect((await other.get('/workspaces', t.key)).headers['ratelimit-limit']).toBe('60');
    expect(await setTier(h.db, t.accountId, 'enterprise')).toBe(true);
    await eventually(
      async () =>
        (await h.get('/workspaces', t.key)).headers['ratelimit-limit'] === '600' &&
        (await other.get('/workspaces', t.key)).headers['ratelimit-limit'] === '600',
    );
  });
});
