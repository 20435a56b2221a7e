import { hash, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { API_KEY_PATTERN } from '../config.js';
import type { Database, Executor } from '../db/client.js';
import { accounts, apiKeys, tiers } from '../db/schema/index.js';
import { changeChannel } from '../lib/change-channel.js';
import { newId, randomBase62 } from '../lib/ids.js';

export const API_KEY_PREFIX = 'svc_live_';

/** Who is calling: resolved from the bearer key on every authenticated request. */
export interface AuthContext {
  apiKeyId: string;
  accountId: string;
  userId: string;
  tierId: string;
  requestsPerMinute: number;
}

/** `svc_live_` + 40 base62 characters (~238 bits), as DECISIONS.md fixes. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

/** SHA-256 hex of a secret (an API key, a console session or setup token): what is stored instead of it. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex'); // one-shot: a third of createHash's cost, on every request
}

export const hashApiKey = hashSecret;

/** `svc_live_` and 4 more characters: shown in listings and GET /usage, never enough to use. */
export function keyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

/**
 * Revokes the live keys `which` selects, in the caller's transaction, and announces it to every instance
 * (apiKeysChannel, sent at commit). The caller calls apiKeysChangedHere() once it has committed, so
 * this process forgets them at once too. Returns the keys revoked.
 */
export async function revokeApiKeysIn(tx: Executor, which: SQL | undefined, now: Date): Promise<{ id: string; accountId: string }[]> {
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(which, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, accountId: apiKeys.accountId });
  for (const accountId of new Set(revoked.map((key) => key.accountId))) await announceApiKeysChanged(tx, accountId);
  return revoked;
}

/**
 * Writes an API key's row (the admin CLI, the console's keys and browser keys): its hash and prefix, never
 * the secret. A browser key is tied to its console session and expires with it. Returns the key's id.
 */
export async function insertApiKey(
  db: Executor,
  key: { secret: string; accountId: string; userId: string; name: string; now: Date; consoleSessionId?: string; expiresAt?: Date },
): Promise<string> {
  const id = newId('key');
  await db.insert(apiKeys).values({
    id,
    accountId: key.accountId,
    userId: key.userId,
    name: key.name,
    keyHash: hashSecret(key.secret),
    keyPrefix: keyPrefix(key.secret),
    createdAt: key.now,
    ...(key.consoleSessionId ? { consoleSessionId: key.consoleSessionId, expiresAt: key.expiresAt ?? null } : {}),
  });
  return id;
}

/** The token of an `Authorization: Bearer …` header when it has the shape of an API key, else null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  return token && API_KEY_PATTERN.test(token) ? token : null;
}

/** The channel every change that can end a key's access is announced on (revocation, tier change). */
export const apiKeysChannel = changeChannel('api_keys_changed');

/** Announces, in the caller's transaction, that cached keys of `accountId` must be looked up again. */
export const announceApiKeysChanged = (tx: Executor, accountId: string): Promise<void> => apiKeysChannel.announce(tx, accountId);

/**
 * Call after the transaction that announced a change has committed: the revoking process forgets at once,
 * so "the next request is a 401" holds without waiting for its own notification.
 */
export const apiKeysChangedHere = (): void => apiKeysChannel.changedHere();

/** How long an authenticated key is trusted without a lookup, when no change is announced meanwhile. */
export const API_KEY_CACHE_MS = 30_000;

export interface ApiKeyFinder {
  (key: string): Promise<AuthContext | null>;
  /** Forgets every cached key (on an announced change: revocations are rare, lookups cheap). */
  forget(): void;
}

/**
 * Returns the lookup of live keys by hash, prepared once (it runs on every request), with the keys it
 * found cached by digest for API_KEY_CACHE_MS: a revocation or tier change is announced on
 * apiKeysChannel (pg_notify, heard by every instance) and empties the cache at once; the time bound
 * only covers a lost notification. Unknown keys are not cached (a guess costs a lookup). The lookup is
 * by SHA-256 digest, so its timing depends on the digest and not on how many characters of a real key
 * were guessed; the final comparison is constant-time as well.
 */
export function apiKeyFinder(db: Database, cacheMs = API_KEY_CACHE_MS, now: () => Date = () => new Date()): ApiKeyFinder {
  const query = db
    .select({
      apiKeyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      accountId: apiKeys.accountId,
      userId: apiKeys.userId,
      tierId: accounts.tierId,
      requestsPerMinute: tiers.requestsPerMinute,
      expiresAt: apiKeys.expiresAt,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .innerJoin(tiers, eq(tiers.id, accounts.tierId))
    .where(
      and(
        eq(apiKeys.keyHash, sql.placeholder('digest')),
        isNull(apiKeys.revokedAt),
        // Console browser keys expire with their session (DECISIONS.md, Console).
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql.placeholder('now'))),
      ),
    )
    .limit(1)
    .prepare('find_api_key');
  const cache = cacheMs > 0 ? new LRUCache<string, { auth: AuthContext; expiresAt: Date | null }>({ max: 10_000, ttl: cacheMs }) : null;
  const find = async (key: string) => {
    const digest = hashApiKey(key);
    const cached = cache?.get(digest);
    // A key that expires (a console browser key) is not trusted from the cache past its expiry.
    if (cached && (!cached.expiresAt || cached.expiresAt > now())) return cached.auth;
    const [row] = await query.execute({ digest, now: now().toISOString() });
    if (!row || !timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(digest, 'hex'))) return null;
    const { keyHash: _hash, expiresAt, ...auth } = row;
    cache?.set(digest, { auth, expiresAt });
    return auth;
  };
  return Object.assign(find, { forget: () => cache?.clear() });
}
