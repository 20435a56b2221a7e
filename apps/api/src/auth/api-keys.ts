import { createHash, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { API_KEY_PATTERN } from '../config.js';
import type { Database } from '../db/client.js';
import { accounts, apiKeys, tiers } from '../db/schema/index.js';
import { randomBase62 } from '../lib/ids.js';

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

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** `svc_live_` and 4 more characters: shown in listings and GET /usage, never enough to use. */
export function keyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

/** The token of an `Authorization: Bearer …` header when it has the shape of an API key, else null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  return token && API_KEY_PATTERN.test(token) ? token : null;
}

/**
 * Returns the lookup of live keys by hash, prepared once (it runs on every request). The lookup is by
 * SHA-256 digest, so its timing depends on the digest and not on how many characters of a real key
 * were guessed; the final comparison is constant-time as well.
 */
export function apiKeyFinder(db: Database): (key: string) => Promise<AuthContext | null> {
  const query = db
    .select({
      apiKeyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      accountId: apiKeys.accountId,
      userId: apiKeys.userId,
      tierId: accounts.tierId,
      requestsPerMinute: tiers.requestsPerMinute,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .innerJoin(tiers, eq(tiers.id, accounts.tierId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder('digest')), isNull(apiKeys.revokedAt)))
    .limit(1)
    .prepare('find_api_key');
  return async (key) => {
    const digest = hashApiKey(key);
    const [row] = await query.execute({ digest });
    if (!row || !timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(digest, 'hex'))) return null;
    const { keyHash: _hash, ...auth } = row;
    return auth;
  };
}
