import { ApiError, createClient, type PersonaClient } from '@persona-api/client';

/** The API under this origin: the console is served by the API server (or proxied to it in development). */
export const API_BASE = `${window.location.origin}/api/v1`;

/**
 * The console's own operations go with the httpOnly session cookie (same origin) and the CSRF header,
 * never an API key: this fetch drops the client's Authorization header.
 */
const cookieFetch: typeof fetch = (input, init) => {
  const request = new Request(input, init);
  request.headers.delete('authorization');
  return fetch(request, { credentials: 'same-origin' });
};

let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

export const consoleApi: PersonaClient = createClient({
  apiKey: 'cookie-session',
  baseUrl: API_BASE,
  maxRetries: 0,
  idempotencyKeys: 'off',
  fetch: (input, init) => {
    const request = new Request(input, init);
    if (csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return cookieFetch(request);
  },
});

/** The rest of the API, called with the session's browser key like any client. */
export function apiWithKey(key: string): PersonaClient {
  return createClient({ apiKey: key, baseUrl: API_BASE, maxRetries: 1 });
}

/** The envelope's message, for every error the pages show. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
