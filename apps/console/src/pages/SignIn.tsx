import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { consoleApi, messageOf } from '../api';
import { SESSION_QUERY } from '../session';

/** `#setup=<token>` from the admin CLI's one-time link. */
const setupToken = () => /(?:^#|&)setup=([A-Za-z0-9]+)/.exec(window.location.hash)?.[1] ?? null;

export function SignIn() {
  const client = useQueryClient();
  const token = setupToken();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get('password'));
    setBusy(true);
    setError(null);
    try {
      if (token) {
        await consoleApi.POST('/console/setup', { body: { token, password } });
        // The token works once: keep it out of the address bar and history.
        history.replaceState(null, '', `${window.location.pathname}#/keys`);
      } else {
        await consoleApi.POST('/console/session', { body: { email: String(form.get('email')), password } });
      }
      await client.invalidateQueries({ queryKey: SESSION_QUERY });
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="narrow">
      <h1>{token ? 'Set up your console password' : 'Sign in to the console'}</h1>
      <form onSubmit={submit} className="stack">
        {!token && (
          <label>
            E-mail
            <input name="email" type="email" autoComplete="username" required />
          </label>
        )}
        <label>
          {token ? 'New password (12 characters or more)' : 'Password'}
          <input name="password" type="password" autoComplete={token ? 'new-password' : 'current-password'} minLength={12} required />
        </label>
        <button type="submit" disabled={busy}>
          {token ? 'Set password and sign in' : 'Sign in'}
        </button>
        {error && <p role="alert">{error}</p>}
      </form>
    </main>
  );
}
