import { ApiError, type PersonaClient } from '@persona-api/client';
import type { ApiAnswer, ApiCaller } from './server.js';

type UntypedMethod = (path: string, init: Record<string, unknown>) => Promise<{ data: unknown; response: Response }>;

/**
 * The API through @persona-api/client (retries, an Idempotency-Key on every POST, typed errors): what `pnpm mcp`
 * uses. Its ApiError is turned back into the status and envelope the tool error is made of.
 */
export function clientCaller(client: PersonaClient): ApiCaller {
  return async ({ method, path, query, body, signal }): Promise<ApiAnswer> => {
    const send = client[method as 'GET'] as unknown as UntypedMethod;
    try {
      const { data, response } = await send(path, { params: { query }, ...(body ? { body } : {}), ...(signal ? { signal } : {}) });
      return { status: response.status, body: data };
    } catch (error) {
      if (error instanceof ApiError) return { status: error.status, body: error.body };
      throw error;
    }
  };
}
