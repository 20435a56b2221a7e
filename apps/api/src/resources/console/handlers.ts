import type { ConsoleApiKey } from '@persona-api/types';
import { and, count, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { apiKeysChangedHere, generateApiKey, hashSecret, insertApiKey, revokeApiKeysIn } from '../../auth/api-keys.js';
import type { Handler } from '../../contract/handler-types.js';
import type { Executor } from '../../db/client.js';
import { apiUsageDaily } from '../../db/schema/billing.js';
import { rowsOf } from '../../db/sql.js';
import { apiKeys, users } from '../../db/schema/tenancy.js';
import { apiError, errors } from '../../http/errors.js';
import type { RequestContext } from '../../http/context.js';
import { iso } from '../../lib/wire.js';
import { decoyHash, hashPassword, verifyPassword } from './passwords.js';
import { consumeRateLimit, requireSession, SESSION_MS, sessionBody, sessionCookie, startSession } from './sessions.js';
import { consoleCredentials, consoleSessions, consoleSetupTokens } from './table.js';

/** Sign-in attempts per minute per e-mail address and per client address (DECISIONS.md, Console). */
export const SIGN_INS_PER_EMAIL = 5;
export const SIGN_INS_PER_CLIENT = 20;
export const MAX_ACTIVE_KEYS = 100;
const REVOKED_KEYS_LISTED = 50;
export const BROWSER_KEY_NAME = 'Console session';

/** `/api/v1`: the cookie is sent only to the console's operations. */
const prefixOf = (ctx: RequestContext) => {
  const route = ctx.request.routeOptions.url ?? '';
  return route.slice(0, route.indexOf('/console/'));
};
const invalidCredentials = () => apiError('invalid_credentials', 'The e-mail address or password is not correct.');

async function limitSignIns(ctx: RequestContext, email: string | null): Promise<void> {
  await consumeRateLimit(ctx, `console-sign-in:ip:${ctx.request.ip}`, SIGN_INS_PER_CLIENT);
  if (email) await consumeRateLimit(ctx, `console-sign-in:email:${email.toLowerCase()}`, SIGN_INS_PER_EMAIL);
}

function setSessionCookie(ctx: RequestContext, token: string): void {
  ctx.setHeader('set-cookie', sessionCookie(ctx.request, prefixOf(ctx), token, SESSION_MS / 1000));
}

export const signIn: Handler<'signIn'> = async ({ body }, ctx) => {
  await limitSignIns(ctx, body.email);
  const [found] = await ctx.db
    .select({ userId: users.id, passwordHash: consoleCredentials.passwordHash })
    .from(users)
    .innerJoin(consoleCredentials, eq(consoleCredentials.userId, users.id))
    .where(and(eq(sql`lower(${users.email})`, body.email.toLowerCase()), isNotNull(users.accountId)));
  // An unknown address costs one scrypt too: the timing does not tell which addresses have accounts.
  const matches = await verifyPassword(body.password, found?.passwordHash ?? (await decoyHash()));
  if (!found || !matches) throw invalidCredentials();
  const { session, token } = await startSession(ctx.db, found.userId, ctx.now());
  setSessionCookie(ctx, token);
  return sessionBody(session);
};

export const completeConsoleSetup: Handler<'completeConsoleSetup'> = async ({ body }, ctx) => {
  await limitSignIns(ctx, null);
  const now = ctx.now();
  const unusedToken = and(eq(consoleSetupTokens.tokenHash, hashSecret(body.token)), isNull(consoleSetupTokens.usedAt), gt(consoleSetupTokens.expiresAt, now));
  const invalidLink = () =>
    apiError('invalid_credentials', 'This setup link is not valid: it was used already or has expired. Ask an administrator for a new one.');
  // A guessed token costs a lookup, not a scrypt.
  const [known] = await ctx.db.select({ userId: consoleSetupTokens.userId }).from(consoleSetupTokens).where(unusedToken);
  if (!known) throw invalidLink();
  const passwordHash = await hashPassword(body.password);
  const started = await ctx.db.transaction(async (tx) => {
    // Used at most once: the update that marks it used is the check.
    const [used] = await tx.update(consoleSetupTokens).set({ usedAt: now }).where(unusedToken).returning({ userId: consoleSetupTokens.userId });
    if (!used) return null;
    await tx
      .insert(consoleCredentials)
      .values({ userId: used.userId, passwordHash, updatedAt: now })
      .onConflictDoUpdate({ target: consoleCredentials.userId, set: { passwordHash, updatedAt: now } });
    return startSession(tx, used.userId, now);
  });
  if (!started) throw invalidLink();
  setSessionCookie(ctx, started.token);
  return sessionBody(started.session);
};

export const getConsoleSession: Handler<'getConsoleSession'> = async (_input, ctx) => sessionBody(await requireSession(ctx, { csrf: false }));

/** Revokes the browser keys of a session, in the caller's transaction; true when one was live. */
async function revokeBrowserKeys(tx: Executor, sessionId: string, now: Date): Promise<boolean> {
  return (await revokeApiKeysIn(tx, eq(apiKeys.consoleSessionId, sessionId), now)).length > 0;
}

export const signOut: Handler<'signOut'> = async (_input, ctx) => {
  const session = await requireSession(ctx, { csrf: true });
  const now = ctx.now();
  const changed = await ctx.db.transaction(async (tx) => {
    await tx.update(consoleSessions).set({ endedAt: now }).where(eq(consoleSessions.id, session.id));
    return revokeBrowserKeys(tx, session.id, now);
  });
  if (changed) apiKeysChangedHere();
  ctx.setHeader('set-cookie', sessionCookie(ctx.request, prefixOf(ctx), '', 0));
  return { object: 'console.session', signed_out: true };
};

export const createBrowserKey: Handler<'createBrowserKey'> = async (_input, ctx) => {
  const session = await requireSession(ctx, { csrf: true });
  const now = ctx.now();
  const key = generateApiKey();
  const changed = await ctx.db.transaction(async (tx) => {
    const changed = await revokeBrowserKeys(tx, session.id, now);
    await insertApiKey(tx, {
      secret: key,
      accountId: session.accountId,
      userId: session.userId,
      name: BROWSER_KEY_NAME,
      now,
      consoleSessionId: session.id,
      expiresAt: session.expiresAt,
    });
    return changed;
  });
  if (changed) apiKeysChangedHere();
  return { object: 'console.browser_key', key, expires_at: iso(session.expiresAt) };
};

type KeyRow = { id: string; name: string; keyPrefix: string; createdAt: Date; revokedAt: Date | null; userId: string; email: string | null };

async function keyBodies(ctx: RequestContext, rows: KeyRow[]): Promise<ConsoleApiKey[]> {
  if (rows.length === 0) return [];
  // This process's request counters not written yet count too.
  await ctx.request.server.usageRecorder.flush();
  // The latest day's row of each key (its primary key, newest first): one row per key, whatever its history.
  const lastUsed = rowsOf<{ api_key_id: string; at: Date | string }>(
    await ctx.db.execute(sql`select k.id as api_key_id, latest.last_request_at as at
      from unnest(array[${sql.join(
        rows.map((row) => sql`${row.id}`),
        sql`, `,
      )}]::text[]) as k(id)
      cross join lateral (select ${apiUsageDaily.lastRequestAt} as last_request_at from ${apiUsageDaily}
        where ${apiUsageDaily.apiKeyId} = k.id order by ${apiUsageDaily.day} desc limit 1) latest`),
  ).map((row) => ({ apiKeyId: row.api_key_id, at: row.at }));
  const lastUsedById = new Map(lastUsed.map((row) => [row.apiKeyId, row.at]));
  return rows.map((row) => {
    const at = lastUsedById.get(row.id);
    return {
      id: row.id,
      object: 'api_key',
      name: row.name,
      key_prefix: row.keyPrefix,
      scope: 'all',
      created_at: iso(row.createdAt),
      created_by: row.email ? { id: row.userId, email: row.email } : null,
      last_used_at: at ? iso(new Date(at)) : null,
      revoked_at: row.revokedAt ? iso(row.revokedAt) : null,
    };
  });
}

const keyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  keyPrefix: apiKeys.keyPrefix,
  createdAt: apiKeys.createdAt,
  revokedAt: apiKeys.revokedAt,
  userId: apiKeys.userId,
  email: users.email,
};

/** The account's keys that people made (browser keys of console sessions are not listed). */
const accountKeys = (accountId: string) => and(eq(apiKeys.accountId, accountId), isNull(apiKeys.consoleSessionId));

export const listConsoleApiKeys: Handler<'listConsoleApiKeys'> = async (_input, ctx) => {
  const session = await requireSession(ctx, { csrf: false });
  const active = await ctx.db
    .select(keyColumns)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(accountKeys(session.accountId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const revoked = await ctx.db
    .select(keyColumns)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(accountKeys(session.accountId), isNotNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.revokedAt), desc(apiKeys.id))
    .limit(REVOKED_KEYS_LISTED);
  const all = [...active, ...revoked].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  return { object: 'list', data: await keyBodies(ctx, all) };
};

async function insertKey(tx: Executor, input: { accountId: string; userId: string; name: string; now: Date }): Promise<{ id: string; secret: string }> {
  const secret = generateApiKey();
  return { id: await insertApiKey(tx, { secret, ...input }), secret };
}

async function keyById(ctx: RequestContext, accountId: string, id: string): Promise<KeyRow> {
  const [row] = await ctx.db
    .select(keyColumns)
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(accountKeys(accountId), eq(apiKeys.id, id)));
  if (!row) throw errors.notFound('API key', id);
  return row;
}

export const createConsoleApiKey: Handler<'createConsoleApiKey'> = async ({ body }, ctx) => {
  const session = await requireSession(ctx, { csrf: true });
  const now = ctx.now();
  const created = await ctx.db.transaction(async (tx) => {
    // Serialises key creation per account, so two concurrent creates cannot both pass the limit.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`console-keys:${session.accountId}`}))`);
    const [active] = await tx
      .select({ n: count() })
      .from(apiKeys)
      .where(and(accountKeys(session.accountId), isNull(apiKeys.revokedAt)));
    if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
      throw errors.conflict('invalid_state', `This account already has ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`);
    }
    return insertKey(tx, { accountId: session.accountId, userId: session.userId, name: body.name, now });
  });
  const [apiKey] = await keyBodies(ctx, [await keyById(ctx, session.accountId, created.id)]);
  return { object: 'api_key.secret', api_key: apiKey as ConsoleApiKey, secret: created.secret, replaces: null };
};

/** Revokes `id` in `tx` (409 when already revoked) and announces it to every instance. */
async function revokeIn(tx: Executor, accountId: string, id: string, now: Date): Promise<void> {
  const [revoked] = await revokeApiKeysIn(tx, and(accountKeys(accountId), eq(apiKeys.id, id)), now);
  if (!revoked) throw errors.conflict('invalid_state', `The API key ${id} is already revoked.`);
}

export const revokeConsoleApiKey: Handler<'revokeConsoleApiKey'> = async ({ params }, ctx) => {
  const session = await requireSession(ctx, { csrf: true });
  await keyById(ctx, session.accountId, params.id);
  await ctx.db.transaction((tx) => revokeIn(tx, session.accountId, params.id, ctx.now()));
  apiKeysChangedHere();
  const [apiKey] = await keyBodies(ctx, [await keyById(ctx, session.accountId, params.id)]);
  return apiKey as ConsoleApiKey;
};

export const rotateConsoleApiKey: Handler<'rotateConsoleApiKey'> = async ({ params }, ctx) => {
  const session = await requireSession(ctx, { csrf: true });
  const old = await keyById(ctx, session.accountId, params.id);
  const now = ctx.now();
  const created = await ctx.db.transaction(async (tx) => {
    await revokeIn(tx, session.accountId, params.id, now);
    return insertKey(tx, { accountId: session.accountId, userId: session.userId, name: old.name, now });
  });
  apiKeysChangedHere();
  const [apiKey] = await keyBodies(ctx, [await keyById(ctx, session.accountId, created.id)]);
  return { object: 'api_key.secret', api_key: apiKey as ConsoleApiKey, secret: created.secret, replaces: params.id };
};
