import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { isDependencyUnavailable } from '../http/dependency-faults.js';
import { CLIENT_CLOSED_REQUEST } from '../http/errors.js';
import type { OperationInfo } from '../contract/spec.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintedHeaders,
  IDEMPOTENCY_LEASE_MS,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  releaseUnansweredClaim,
  renewIdempotencyLease,
  requestFingerprint,
} from '../http/idempotency.js';
import { operationIdOf } from './route-config.js';

/** How long after an unanswered claim its row may still appear (a statement delivered just before a cut). */
const UNANSWERED_CLAIM_WATCH_MS = 10_000;

/** The hooks of every POST: `claim` (preHandler) replays or claims an Idempotency-Key, `store` (onSend) keeps the answer. */
export function idempotencyHooks(db: Database, now: () => Date, operations: Map<string, OperationInfo>) {
  // Per operation, the headers its contract declares (other than the key): they select behaviour.
  const declaredHeaders = new Map([...operations.values()].map((op) => [op.operationId, fingerprintedHeaders(op.headerNames)]));
  const headersOf = (request: FastifyRequest): Record<string, string> => {
    const sent: Record<string, string> = {};
    for (const [lowerCase, name] of declaredHeaders.get(operationIdOf(request) ?? '') ?? []) {
      const value = request.headers[lowerCase];
      if (typeof value === 'string') sent[name] = value;
    }
    return sent;
  };

  // POST + Idempotency-Key: replay a stored response, or claim the key for this request.
  const claimKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || !request.auth) return;
    const path = request.url.split('?')[0] ?? '';
    const fingerprint = requestFingerprint(request.method, path, request.body, headersOf(request));
    const apiKeyId = request.auth.apiKeyId;
    const claimedAt = now();
    let claim: Awaited<ReturnType<typeof claimIdempotencyKey>>;
    try {
      claim = await claimIdempotencyKey(db, apiKeyId, key, fingerprint, claimedAt);
    } catch (err) {
      // The insert may have committed unheard: undo it once the database is back, or a retry waits out the lease.
      if (isDependencyUnavailable(err)) {
        // Whether the insert landed is unknown, and it may land late: keep looking for it for a while.
        const lookUntil = Date.now() + UNANSWERED_CLAIM_WATCH_MS;
        settleWhenBack(async () => {
          if (!(await releaseUnansweredClaim(db, apiKeyId, key, claimedAt)) && Date.now() < lookUntil) throw new Error('claim not found yet');
        }, request);
      }
      throw err;
    }
    if (claim.kind === 'replay') {
      reply.header('idempotent-replayed', 'true');
      if (claim.response.contentType) reply.header('content-type', claim.response.contentType);
      // Stored already serialized: skip the response schema.
      return reply
        .code(claim.response.status)
        .serializer((payload: unknown) => payload as string)
        .send(claim.response.body);
    }
    request.idempotencyKey = key;
    keepClaimed(request, request.auth.apiKeyId, key);
  };

  // Renews the claim's lease while the request holds it, so that only a dead process lets it lapse. Stops
  // once the key is completed or released (its row is no longer in progress) or the request let go of it.
  const keepClaimed = (request: FastifyRequest, apiKeyId: string, key: string) => {
    const timer = setInterval(() => {
      if (request.idempotencyKey !== key) return clearInterval(timer);
      renewIdempotencyLease(db, apiKeyId, key, now()).then(
        (held) => held || clearInterval(timer),
        (err: unknown) => {
          clearInterval(timer);
          request.log.warn({ err }, 'renewing an idempotency lease failed');
        },
      );
    }, IDEMPOTENCY_LEASE_MS / 3);
    timer.unref();
  };

  const storeResponse = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.idempotencyKey;
    if (!key || !request.auth) return payload;
    request.idempotencyKey = null;
    const apiKeyId = request.auth.apiKeyId;
    // A server error, or a client that left (499): a retry must run the request again.
    const settle =
      reply.statusCode >= 500 || reply.statusCode === CLIENT_CLOSED_REQUEST || typeof payload !== 'string'
        ? () => releaseIdempotencyKey(db, apiKeyId, key)
        : (() => {
            const contentType = reply.getHeader('content-type');
            const stored = { status: reply.statusCode, body: payload, contentType: typeof contentType === 'string' ? contentType : null };
            return () => completeIdempotencyKey(db, apiKeyId, key, stored);
          })();
    try {
      await settle();
    } catch (err) {
      // The database went away after the request's own work (DECISIONS.md, Dependency faults): the answer
      // still goes out, and the key is settled as soon as the database is back, so a retry replays it.
      if (!isDependencyUnavailable(err)) throw err;
      request.log.warn({ err, dependency_unavailable: true }, 'idempotency key not settled yet: retrying in the background');
      settleWhenBack(settle, request);
    }
    return payload;
  };

  const settleWhenBack = (settle: () => Promise<void>, request: FastifyRequest) => {
    const giveUpAt = Date.now() + IDEMPOTENCY_LEASE_MS;
    const attempt = () => {
      // Each try is bounded too: a statement lost in a cut must not stop the retries.
      let timer: NodeJS.Timeout | undefined;
      const bounded = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('settling the idempotency key timed out')), 3_000);
      });
      Promise.race([settle(), bounded])
        .catch((err: unknown) => {
          if (Date.now() < giveUpAt) return void setTimeout(attempt, 250).unref();
          request.log.warn({ err }, 'idempotency key still not settled: its lease will lapse');
        })
        .finally(() => clearTimeout(timer));
    };
    setTimeout(attempt, 250).unref();
  };

  return { claim: claimKey, store: storeResponse };
}

/** Keeps the idempotency table small; returns the timer to clear on close. */
export function purgeIdempotencyKeysHourly(app: FastifyInstance, db: Database, now: () => Date): NodeJS.Timeout {
  // Idempotency keys older than 24 h are ignored on lookup; this only keeps the table small.
  const purge = setInterval(
    () => {
      purgeExpiredIdempotencyKeys(db, now()).catch((err: unknown) => app.log.warn({ err }, 'idempotency purge failed'));
    },
    60 * 60 * 1000,
  );
  purge.unref();
  return purge;
}
