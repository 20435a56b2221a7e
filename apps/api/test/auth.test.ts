import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../src/admin/accounts.js';
import { bearerToken, generateApiKey, hashApiKey } from '../src/auth/api-keys.js';
import { apiKeys } from '../src/db/schema/index.js';
import { errorOf, useHarness, useTenant, type Harness } from './support/harness.js';

// `svc_live_` keys of at least 32 random characters, stored only as a hash; missing,
// malformed, unknown or revoked keys are all the same 401.

const h = useHarness();
const alice = useTenant(h);

const expectInvalidKey = (res: Awaited<ReturnType<Harness['get']>>) => {
  expect(res.status).toBe(401);
  expect(errorOf(res)).toEqual({ type: 'authentication_error', code: 'invalid_api_key', param: null });
};

describe('API keys', () => {
  it('are svc_live_ and 40 base62 characters, different every time', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(key).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
  });

  it('are stored only as a SHA-256 hash and a 13-character prefix', async () => {
    const rows = await h.db.select().from(apiKeys).where(eq(apiKeys.id, alice.apiKeyId));
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(alice.key);
    expect(stored).not.toContain(alice.key.slice(13));
    expect(rows[0]?.keyHash).toBe(hashApiKey(alice.key));
    expect(rows[0]?.keyPrefix).toBe(alice.key.slice(0, 13));
  });

  it('parse only from a well-formed Bearer header', () => {
    const key = generateApiKey();
    expect(bearerToken(`Bearer ${key}`)).toBe(key);
    expect(bearerToken(`bearer ${key}`)).toBe(key);
    expect(bearerToken(`Basic ${key}`)).toBeNull();
    expect(bearerToken(`Bearer ${key} extra`)).toBeNull();
    expect(bearerToken(`Bearer svc_live_short`)).toBeNull();
    expect(bearerToken(`Bearer svc_test_${key.slice(9)}`)).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

describe('authentication', () => {
  it('lets a valid key in', async () => {
    const res = await h.get('/workspaces', alice.key);
    expect(res.status).toBe(200);
  });

  it('refuses a missing key', async () => {
    expectInvalidKey(await h.get('/workspaces'));
  });

  it('refuses malformed keys and headers', async () => {
    for (const authorization of ['Bearer', 'Bearer svc_live_tooshort', `Token ${alice.key}`, `Bearer ${alice.key}!`, alice.key]) {
      expectInvalidKey(await h.request('GET', '/workspaces', { headers: { authorization } }));
    }
  });

  it('refuses an unknown key of the right shape', async () => {
    expectInvalidKey(await h.get('/workspaces', generateApiKey()));
  });

  it('refuses a key at once when it is revoked', async () => {
    const { id, key } = await createApiKey(h.db, { accountId: alice.accountId, name: 'to revoke' });
    expect((await h.get('/workspaces', key)).status).toBe(200);
    expect(await revokeApiKey(h.db, id)).toBe(true);
    expectInvalidKey(await h.get('/workspaces', key));
    expect(await revokeApiKey(h.db, id)).toBe(false);
  });

  it('gives every refusal the same body, so it tells nothing about the key', async () => {
    const { id, key: revoked } = await createApiKey(h.db, { accountId: alice.accountId, name: 'revoked' });
    await revokeApiKey(h.db, id);
    const bodies = new Set<string>();
    for (const key of [undefined, 'svc_live_x', generateApiKey(), revoked]) bodies.add((await h.get('/workspaces', key)).text);
    expect(bodies.size).toBe(1);
  });

  it('authenticates before validating, so an anonymous caller learns nothing about parameters', async () => {
    expectInvalidKey(await h.get('/workspaces?limit=1000'));
  });

  it('accepts a known key given at creation (BOOTSTRAP_API_KEY)', async () => {
    const key = `svc_live_${'K'.repeat(36)}`;
    await createApiKey(h.db, { accountId: alice.accountId, name: 'bootstrap', key });
    expect((await h.get('/workspaces', key)).status).toBe(200);
  });
});
