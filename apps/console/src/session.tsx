import type { ConsoleSession, PersonaClient } from '@persona-api/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';
import { ApiError } from '@persona-api/client';
import { apiWithKey, consoleApi, setCsrfToken } from './api';

export interface SignedIn {
  session: ConsoleSession;
  /** The API with this session's browser key. */
  api: PersonaClient;
}

const SessionContext = createContext<SignedIn | null>(null);
export const useSignedIn = (): SignedIn => {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSignedIn outside a session');
  return value;
};

/** Reads the cookie's session (null when signed out) and gets it a browser key for the rest of the API. */
async function loadSession(): Promise<SignedIn | null> {
  try {
    const { data: session } = await consoleApi.GET('/console/session');
    setCsrfToken(session.csrf_token);
    const { data: browserKey } = await consoleApi.POST('/console/session/browser-key');
    return { session, api: apiWithKey(browserKey.key) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export const SESSION_QUERY = ['console-session'];

export function SessionGate({ signedOut, children }: { signedOut: ReactNode; children: ReactNode }) {
  const query = useQuery({ queryKey: SESSION_QUERY, queryFn: loadSession, staleTime: Number.POSITIVE_INFINITY, retry: false });
  if (query.isPending) return <p role="status">Loading…</p>;
  if (query.isError) return <p role="alert">{String(query.error)}</p>;
  if (!query.data) return <>{signedOut}</>;
  return <SessionContext.Provider value={query.data}>{children}</SessionContext.Provider>;
}

export function useSignOut() {
  const client = useQueryClient();
  return async () => {
    await consoleApi.DELETE('/console/session');
    setCsrfToken('');
    // Nothing of the signed-out account stays in memory; the gate shows the sign-in page.
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_QUERY[0] });
    client.setQueryData(SESSION_QUERY, null);
  };
}
