import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';
import { hashSecret } from '../../auth/api-keys.js';
import type { Executor } from '../../db/client.js';
import { accounts, users } from '../../db/schema/tenancy.js';
import { apiError, errors } from '../../http/errors.js';
import type { RequestContext } from '../../http/context.js';
import { enforceRateLimit } from '../../http/rate-limit.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/wire.js';
import { consoleSessions } from './table.js';
import type { ConsoleSession } from '@persona-api/types';

export const SESSION_COOKIE = 'persona_session';
export const SESSION_MS = 12 * 60 * 60 * 1000;
/** Console operations per client address per minute (DECISIONS.md, Console). */
export const CONSOLE_REQUESTS_PER_MINUTE = 120;

/** 256 random bits as 43 base64url characters. */
export const randomToken = () => randomBytes(32).toString('base64url');

/** Over https directly, or behind a proxy that says so: only then may the cookie be `Secure`. */
function servedOverHttps(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  return request.protocol === 'https' || (typeof forwarded === 'string' && forwarded.split(',')[0]?.trim() === 'https');
}

export function sessionCookie(request: FastifyRequest, prefix: string, token: string, maxAgeSeconds: number): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: token,
    httpOnly: true,
    sameSite: 'strict',
    secure: servedOverHttps(request),
    path: `${prefix}/console`,
    maxAge: maxAgeSeconds,
  });
}

/** The shared limiter, keyed by purpose; sets the RateLimit headers, throws the 429. */
export async function consumeRateLimit(ctx: RequestContext, key: string, limit: number): Promise<void> {
  const limiter = ctx.services.rateLimiter;
  if (!limiter) return;
  await enforceRateLimit(
    limiter,
    key,
    limit,
    (name, value) => ctx.setHeader(name, value),
    (decision) => `Too many attempts. Retry after ${decision.retryAfterSeconds} seconds.`,
  );
}

export interface LiveSession {
  id: string;
  userId: string;
  email: string;
  accountId: string;
  accountName: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
  role: 'owner' | 'member';
}

async function roleOf(db: Executor, accountId: string, userId: string): Promise<'owner' | 'member'> {
  const [first] = await db.select({ id: users.id }).from(users).where(eq(users.accountId, accountId)).orderBy(users.createdAt, users.id).limit(1);
  return first?.id === userId ? 'owner' : 'member';
}

/** Starts a session for `userId`; returns it and the cookie's token (shown to nobody else). */
export async function startSession(db: Executor, userId: string, now: Date): Promise<{ session: LiveSession; token: string }> {
  const [user] = await db
    .select({ id: users.id, email: users.email, accountId: accounts.id, accountName: accounts.name })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.id, userId));
  if (!user) throw apiError('invalid_credentials', 'The e-mail address or password is not correct.');
  const token = randomToken();
  const session = {
    id: newId('csn'),
    userId,
    email: user.email,
    accountId: user.accountId,
    accountName: user.accountName,
    csrfToken: randomToken(),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_MS),
    role: await roleOf(db, user.accountId, userId),
  };
  await db.insert(consoleSessions).values({
    id: session.id,
    userId,
    accountId: session.accountId,
    tokenHash: hashSecret(token),
    csrfToken: session.csrfToken,
    createdAt: now,
    expiresAt: session.expiresAt,
  });
  return { session, token };
}

/**
 * The caller's live session, from the cookie (401 `invalid_session` without one); for a change
 * (`csrf: true`) the `X-CSRF-Token` header must be this session's token (403). Rate limited per client.
 */
export async function requireSession(ctx: RequestContext, options: { csrf: boolean }): Promise<LiveSession> {
  await consumeRateLimit(ctx, `console:${ctx.request.ip}`, CONSOLE_REQUESTS_PER_MINUTE * ctx.services.rateLimitMultiplier);
  const header = ctx.request.headers.cookie;
  const token = header ? parseCookie(header)[SESSION_COOKIE] : undefined;
  const noSession = () => apiError('invalid_session', 'Sign in to the console first; your session has ended.');
  if (!token) throw noSession();
  const [row] = await ctx.db
    .select({ session: consoleSessions, email: users.email, accountName: accounts.name })
    .from(consoleSessions)
    .innerJoin(users, eq(users.id, consoleSessions.userId))
    .innerJoin(accounts, eq(accounts.id, consoleSessions.accountId))
    .where(and(eq(consoleSessions.tokenHash, hashSecret(token)), isNull(consoleSessions.endedAt), gt(consoleSessions.expiresAt, ctx.now())));
  if (!row) throw noSession();
  if (options.csrf && ctx.request.headers['x-csrf-token'] !== row.session.csrfToken) {
    throw errors.permissionDenied('This request needs the X-CSRF-Token header of your console session.', 'X-CSRF-Token');
  }
  return {
    id: row.session.id,
    userId: row.session.userId,
    email: row.email,
    accountId: row.session.accountId,
    accountName: row.accountName,
    csrfToken: row.session.csrfToken,
    createdAt: row.session.createdAt,
    expiresAt: row.session.expiresAt,
    role: await roleOf(ctx.db, row.session.accountId, row.session.userId),
  };
}

export function sessionBody(session: LiveSession): ConsoleSession {
  return {
    id: session.id,
    object: 'console.session',
    user: { id: session.userId, email: session.email },
    account: { id: session.accountId, name: session.accountName },
    role: session.role,
    csrf_token: session.csrfToken,
    created_at: iso(session.createdAt),
    expires_at: iso(session.expiresAt),
  };
}
