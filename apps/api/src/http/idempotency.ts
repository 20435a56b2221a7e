import { createHash } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import stableStringify from 'safe-stable-stringify';
import type { Database, Executor } from '../db/client.js';
import { deleteOlderThan, purgeJob } from '../db/purge.js';
import { idempotencyKeys } from '../db/schema/index.js';
import type { JobDefinition } from '../jobs/types.js';
import type { Services } from '../services.js';
import { apiError } from './errors.js';

/** Stripe's window: a key is remembered for 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/**
 * How long a claim lives without renewal. The request holding a key renews it every third of this while
 * it runs (renewIdempotencyLease), so only a holder whose process died lets it lapse: a retry then runs
 * the request again instead of meeting a 409 for 24 hours (brandur's "locked_at" on Stripe-like keys).
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;

export interface StoredResponse {
  status: number;
  body: string;
  contentType: string | null;
}

/** A claim names its row by `createdAt`: settling it never touches a later claim of the same key. */
export type IdempotencyClaim = { kind: 'claimed'; createdAt: Date } | { kind: 'replay'; response: StoredResponse };

/**
 * Same method, path, body (keys in any order) and values of the behaviour-selecting headers give the
 * same fingerprint. `headers` holds only the headers the operation declares as choosing what it does
 * (see `fingerprintedHeaders`), by the name the contract spells; none sent fingerprints the body alone.
 */
export function requestFingerprint(method: string, path: string, body: unknown, headers: Record<string, string> = {}): string {
  const fingerprinted = Object.keys(headers).length > 0 ? { body, ...headers } : body;
  return createHash('sha256')
    .update(`${method} ${path}\n${stableStringify(fingerprinted ?? null)}`)
    .digest('hex');
}

/**
 * The header parameters an operation declares in the contract are part of its request (the Persona-Id
 * header chooses the persona as the body's persona_id does), so they belong in the fingerprint; the
 * Idempotency-Key itself does not. Returns the lower-case name Node gives each, mapped to the contract's.
 */
export function fingerprintedHeaders(declared: Record<string, string>): [lowerCase: string, name: string][] {
  return Object.entries(declared).filter(([lowerCase]) => lowerCase !== IDEMPOTENCY_HEADER.toLowerCase());
}

/**
 * Claims `key` for this request, or finds the earlier request that claimed it. A claim is a row in
 * state in_progress; the response is stored when it is sent, so a retry replays it and the handler
 * (and any charge it makes) does not run twice.
 */
export async function claimIdempotencyKey(db: Database, apiKeyId: string, key: string, fingerprint: string, now: Date): Promise<IdempotencyClaim> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ apiKeyId, key, requestHash: fingerprint, state: 'in_progress', createdAt: now, lockedUntil: leaseFrom(now) })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { kind: 'claimed', createdAt: now };

    const [existing] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key)));
    if (!existing) continue; // Released between the two statements: claim again.
    if (existing.createdAt.getTime() <= now.getTime() - IDEMPOTENCY_TTL_MS) {
      // Expired: forget it and claim afresh.
      await db
        .delete(idempotencyKeys)
        .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.createdAt, existing.createdAt)));
      continue;
    }
    if (existing.requestHash !== fingerprint) {
      throw apiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.', IDEMPOTENCY_HEADER);
    }
    if (existing.state === 'in_progress') {
      // Rows from before leases existed have none: their lease ends IDEMPOTENCY_LEASE_MS after the claim.
      const lockedUntil = existing.lockedUntil ?? leaseFrom(existing.createdAt);
      if (lockedUntil.getTime() < now.getTime()) {
        // Its holder is gone. Take the claim over, once: of two retries racing here, one updates the row.
        const taken = await db
          .update(idempotencyKeys)
          .set({ lockedUntil: leaseFrom(now) })
          .where(
            and(
              eq(idempotencyKeys.apiKeyId, apiKeyId),
              eq(idempotencyKeys.key, key),
              eq(idempotencyKeys.state, 'in_progress'),
              lockedUntilIs(existing.lockedUntil),
            ),
          )
          .returning({ key: idempotencyKeys.key });
        if (taken.length > 0) return { kind: 'claimed', createdAt: existing.createdAt };
      }
    }
    if (existing.state !== 'completed' || existing.responseStatus === null || existing.responseBody === null) {
      throw apiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry after it completes.', IDEMPOTENCY_HEADER);
    }
    return {
      kind: 'replay',
      response: { status: existing.responseStatus, body: existing.responseBody, contentType: existing.responseContentType },
    };
  }
  throw apiError('idempotency_key_in_use', 'A request with this Idempotency-Key is being processed.', IDEMPOTENCY_HEADER);
}

const leaseFrom = (time: Date) => new Date(time.getTime() + IDEMPOTENCY_LEASE_MS);
const lockedUntilIs = (value: Date | null) => (value === null ? isNull(idempotencyKeys.lockedUntil) : eq(idempotencyKeys.lockedUntil, value));

/** Extends the claim of a request still running; false when the key is no longer held in progress. */
export async function renewIdempotencyLease(db: Database, apiKeyId: string, key: string, now: Date): Promise<boolean> {
  const renewed = await db
    .update(idempotencyKeys)
    .set({ lockedUntil: leaseFrom(now) })
    .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.state, 'in_progress')))
    .returning({ key: idempotencyKeys.key });
  return renewed.length > 0;
}

/**
 * Stores the response of a claimed key so later retries replay it. `executor` may be the transaction of
 * the request's own write (app/idempotency.ts, `atomically`): the effect and its answer then commit together.
 */
export async function completeIdempotencyKey(executor: Executor, apiKeyId: string, key: string, response: StoredResponse, claimedAt: Date): Promise<void> {
  await executor
    .update(idempotencyKeys)
    .set({ state: 'completed', responseStatus: response.status, responseBody: response.body, responseContentType: response.contentType, lockedUntil: null })
    .where(heldClaim(apiKeyId, key, claimedAt));
}

/**
 * Gives the key up (after a server error) so that a retry runs the request again; only while it is still
 * this claim's and in progress. A key completed in the write's transaction whose COMMIT reply was lost is
 * kept, so the retry replays it; and a release that arrives late never deletes a later claim.
 */
export async function releaseIdempotencyKey(db: Database, apiKeyId: string, key: string, claimedAt: Date): Promise<boolean> {
  const released = await db
    .delete(idempotencyKeys)
    .where(heldClaim(apiKeyId, key, claimedAt))
    .returning({ key: idempotencyKeys.key });
  return released.length > 0;
}

const heldClaim = (apiKeyId: string, key: string, claimedAt: Date) =>
  and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.state, 'in_progress'), eq(idempotencyKeys.createdAt, claimedAt));

/**
 * Gives up a claim this request may have made without hearing the answer (the connection dropped after the
 * insert): only a row still in progress and created at `claimedAt`, the claim's own timestamp.
 */
export async function releaseUnansweredClaim(db: Database, apiKeyId: string, key: string, claimedAt: Date): Promise<boolean> {
  const released = await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.apiKeyId, apiKeyId),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.state, 'in_progress'),
        eq(idempotencyKeys.createdAt, claimedAt),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return released.length > 0;
}

/** Deletes the keys past their 24 h, a batch per statement; returns how many. */
export function purgeExpiredIdempotencyKeys(db: Database, now: Date, signal?: AbortSignal): Promise<number> {
  return deleteOlderThan(db, idempotencyKeys, idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS), { signal });
}

export const IDEMPOTENCY_JOBS = { purge: 'idempotency.purge' } as const;

/**
 * The hourly purge of expired keys, a scheduled job like every other cleanup: it runs once for the whole
 * cluster (was a timer in every API process), and however many keys a busy hour left, in batches.
 */
export function idempotencyJobs(services: Pick<Services, 'db' | 'clock'>): JobDefinition[] {
  return [
    purgeJob({
      kind: IDEMPOTENCY_JOBS.purge,
      schedule: '53 * * * *',
      what: 'expired idempotency keys',
      purge: (signal) => purgeExpiredIdempotencyKeys(services.db, services.clock.now(), signal),
    }),
  ];
}
