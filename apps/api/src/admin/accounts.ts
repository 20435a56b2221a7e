import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { announceApiKeysChanged, apiKeysChangedHere, generateApiKey, hashSecret, insertApiKey, revokeApiKeysIn } from '../auth/api-keys.js';
import { grantCreditsIn } from '../billing/credits.js';
import type { Database, Executor } from '../db/client.js';
import { accounts, apiKeys, users } from '../db/schema/index.js';
import { qualified } from '../db/sql.js';
import type { TierId } from '../db/seed.js';
import { newId, randomBase62 } from '../lib/ids.js';
import { consoleSetupTokens } from '../resources/console/table.js';
import { insertWorkspace } from '../resources/workspaces/repository.js';

/** Account administration shared by the admin CLI, the first-start bootstrap and the tests. */

export interface NewAccount {
  name: string;
  email: string;
  tier: TierId;
  credits: number;
  now?: Date;
}

export interface CreatedAccount {
  accountId: string;
  userId: string;
}

export async function createAccount(db: Database, input: NewAccount): Promise<CreatedAccount> {
  const now = input.now ?? new Date();
  return db.transaction(async (tx) => {
    const accountId = newId('acct');
    await tx.insert(accounts).values({ id: accountId, name: input.name, tierId: input.tier, creditBalance: 0, createdAt: now });
    // Someone invited to a workspace before signing up becomes that account's user (status active).
    const [invited] = await tx
      .select()
      .from(users)
      .where(and(eq(sql`lower(${users.email})`, input.email.toLowerCase()), isNull(users.accountId)));
    let userId: string;
    if (invited) {
      userId = invited.id;
      await tx.update(users).set({ accountId }).where(eq(users.id, userId));
    } else {
      userId = newId('usr');
      await tx.insert(users).values({ id: userId, email: input.email, accountId, createdAt: now });
    }
    if (input.credits > 0) {
      await grantCreditsIn(tx, { accountId, amount: input.credits, description: 'Initial credits', now });
    }
    return { accountId, userId };
  });
}

async function ownerOf(db: Executor, accountId: string): Promise<string> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.accountId, accountId)).orderBy(users.createdAt).limit(1);
  if (!user) throw new Error(`No account ${accountId}.`);
  return user.id;
}

export async function createWorkspaceFor(
  db: Database,
  input: { accountId: string; name: string; type?: 'enterprise' | 'marketing_agency' | 'user' | 'starter'; now?: Date },
): Promise<string> {
  const now = input.now ?? new Date();
  const ownerUserId = await ownerOf(db, input.accountId);
  const id = newId('ws');
  await db.transaction((tx) =>
    insertWorkspace(
      tx,
      {
        id,
        accountId: input.accountId,
        ownerUserId,
        name: input.name,
        type: input.type ?? 'user',
        image: null,
        budgetAlert: null,
        usageLimit: null,
        billingEmail: null,
        createdAt: now,
        updatedAt: now,
      },
      ownerUserId,
    ),
  );
  return id;
}

/** Creates a key (or registers a known one, e.g. BOOTSTRAP_API_KEY). The secret is returned once, never stored. */
export async function createApiKey(db: Database, input: { accountId: string; name: string; key?: string; now?: Date }): Promise<{ id: string; key: string }> {
  const key = input.key ?? generateApiKey();
  const userId = await ownerOf(db, input.accountId);
  const id = await insertApiKey(db, { secret: key, accountId: input.accountId, userId, name: input.name, now: input.now ?? new Date() });
  return { id, key };
}

/**
 * The keys people made, and the browser keys still live: a console page load makes a browser key and
 * revokes the one before, so the others would be one line per page load ever opened.
 */
export async function listApiKeys(db: Database, accountId?: string, now: Date = new Date()) {
  return db
    .select({
      id: apiKeys.id,
      accountId: apiKeys.accountId,
      name: apiKeys.name,
      keyPrefix: apiKeys.keyPrefix,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(
      and(
        accountId ? eq(apiKeys.accountId, accountId) : undefined,
        or(isNull(apiKeys.consoleSessionId), and(isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, now))),
      ),
    )
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** Revokes a key at once: the next request with it is a 401. Returns false for an unknown or revoked key. */
/** Every instance hears it (apiKeysChannel) and forgets the keys it had cached. */
export async function revokeApiKey(db: Database, keyId: string, now = new Date()): Promise<boolean> {
  const revoked = await db.transaction((tx) => revokeApiKeysIn(tx, eq(apiKeys.id, keyId), now));
  if (revoked.length > 0) apiKeysChangedHere();
  return revoked.length > 0;
}

/** The new tier's rate limit applies from the next request on every instance (apiKeysChannel). */
export async function setTier(db: Database, accountId: string, tier: TierId): Promise<boolean> {
  const changed = await db.transaction(async (tx) => {
    const updated = await tx.update(accounts).set({ tierId: tier }).where(eq(accounts.id, accountId)).returning({ id: accounts.id });
    if (updated.length > 0) await announceApiKeysChanged(tx, accountId);
    return updated.length > 0;
  });
  if (changed) apiKeysChangedHere();
  return changed;
}

export async function listAccounts(db: Database) {
  return db
    .select({
      id: accounts.id,
      name: accounts.name,
      tier: accounts.tierId,
      creditBalance: accounts.creditBalance,
      createdAt: accounts.createdAt,
      email: sql<string>`(select ${qualified(users.email)} from ${users} where ${qualified(users.accountId)} = ${qualified(accounts.id)} order by ${qualified(users.createdAt)} limit 1)`,
    })
    .from(accounts)
    .orderBy(desc(accounts.createdAt));
}

export async function isEmpty(db: Database): Promise<boolean> {
  const [row] = await db.select({ id: accounts.id }).from(accounts).limit(1);
  return row === undefined;
}

export interface Bootstrap {
  accountId: string;
  workspaceId: string;
  apiKey: string;
}

/** On the first start of an empty database: a development account, workspace and key. */
export async function bootstrapIfEmpty(db: Database, options: { apiKey?: string | undefined }): Promise<Bootstrap | null> {
  if (!(await isEmpty(db))) return null;
  const { accountId } = await createAccount(db, {
    name: 'Development',
    email: 'developer@localhost.localdomain',
    tier: 'professional',
    credits: 50_000,
  });
  const workspaceId = await createWorkspaceFor(db, { accountId, name: 'Development' });
  const { key } = await createApiKey(db, { accountId, name: 'Development key', key: options.apiKey });
  return { accountId, workspaceId, apiKey: key };
}

/** How long a console setup link works (DECISIONS.md, Console). */
export const SETUP_LINK_MS = 72 * 60 * 60 * 1000;

/**
 * A one-time console setup link's token for the account's owner, or for `email` (made a member of the
 * account when it is not one yet). Only the token's SHA-256 is stored; the caller prints the link once.
 */
export async function createConsoleSetupToken(
  db: Database,
  input: { accountId: string; email?: string | undefined; now?: Date },
): Promise<{ userId: string; token: string }> {
  const now = input.now ?? new Date();
  return db.transaction(async (tx) => {
    let userId: string;
    if (input.email) {
      const [user] = await tx
        .select({ id: users.id, accountId: users.accountId })
        .from(users)
        .where(eq(sql`lower(${users.email})`, input.email.toLowerCase()));
      if (user && user.accountId !== null && user.accountId !== input.accountId) throw new Error(`${input.email} belongs to another account.`);
      if (user) {
        userId = user.id;
        if (user.accountId === null) await tx.update(users).set({ accountId: input.accountId }).where(eq(users.id, userId));
      } else {
        userId = newId('usr');
        await tx.insert(users).values({ id: userId, email: input.email, accountId: input.accountId, createdAt: now });
      }
    } else {
      userId = await ownerOf(tx, input.accountId);
    }
    const token = randomBase62(32);
    await tx.insert(consoleSetupTokens).values({
      tokenHash: hashSecret(token),
      userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + SETUP_LINK_MS),
    });
    return { userId, token };
  });
}

/** The link a setup token is used from: the console page of the server at `publicBaseUrl` (…/api/v1). */
export function consoleSetupLink(publicBaseUrl: string, token: string): string {
  return `${new URL(publicBaseUrl).origin}/console/#setup=${token}`;
}
