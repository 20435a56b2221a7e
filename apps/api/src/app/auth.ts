import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ApiKeyFinder, bearerToken } from '../auth/api-keys.js';
import { errors } from '../http/errors.js';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.js';

/**
 * The onRequest hook of every operation with `security`: the bearer key (missing, malformed, unknown
 * and revoked keys are the same 401), then the rate limit of the key's tier with its headers.
 */
export function authentication(findApiKey: ApiKeyFinder, rateLimiter: RateLimiter, rateLimitMultiplier: number) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerToken(request.headers.authorization);
    const auth = token ? await findApiKey(token) : null;
    if (!auth) throw errors.invalidApiKey();
    request.auth = auth;
    await enforceRateLimit(
      rateLimiter,
      auth.apiKeyId,
      auth.requestsPerMinute * rateLimitMultiplier,
      (name, value) => reply.header(name, value),
      (decision) => `Rate limit of ${decision.limit} requests per minute exceeded for this API key. Retry after ${decision.retryAfterSeconds} seconds.`,
    );
  };
}
