import type { ConsoleApiKey, ConsoleNewApiKey } from '@persona-api/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { consoleApi, messageOf } from '../api';

const KEYS = ['console-api-keys'];
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Developer → API keys: create (the secret shown once), revoke, rotate, last used. */
export function ApiKeys() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: KEYS, queryFn: async () => (await consoleApi.GET('/console/api-keys')).data.data });
  const [fresh, setFresh] = useState<ConsoleNewApiKey | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: KEYS });

  const create = useMutation({
    mutationFn: async (name: string) => (await consoleApi.POST('/console/api-keys', { body: { name } })).data,
    onSuccess: (created) => {
      setFresh(created);
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: async (key: ConsoleApiKey) => (await consoleApi.POST('/console/api-keys/{id}/revoke', { params: { path: { id: key.id } } })).data,
    onSuccess: () => void refresh(),
  });
  const rotate = useMutation({
    mutationFn: async (key: ConsoleApiKey) => (await consoleApi.POST('/console/api-keys/{id}/rotate', { params: { path: { id: key.id } } })).data,
    onSuccess: (created) => {
      setFresh(created);
      void refresh();
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    create.mutate(String(new FormData(form).get('name')), { onSuccess: () => form.reset() });
  };
  const failure = create.error ?? revoke.error ?? rotate.error ?? keys.error;

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p>Keys let your programs call the API as this account. Keep them secret; revoke a key the moment it may have leaked.</p>
      <form onSubmit={submit} className="row">
        <label>
          Name
          <input name="name" required maxLength={100} placeholder="Production backend" />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {fresh && (
        <div className="callout" role="status">
          <p>
            <strong>Copy your new key now.</strong> It is shown only once{fresh.replaces ? ` (it replaces ${fresh.replaces}, which no longer works)` : ''}.
          </p>
          <code data-testid="new-secret">{fresh.secret}</code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(fresh.secret)}>
            Copy
          </button>{' '}
          <button type="button" onClick={() => setFresh(null)}>
            Done
          </button>
        </div>
      )}
      {failure && <p role="alert">{messageOf(failure)}</p>}
      {keys.data && keys.data.length === 0 && <p>No keys yet: create one above and use it as `Authorization: Bearer …`.</p>}
      {keys.data && keys.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scope</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.id} data-key-id={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.key_prefix}…</code>
                </td>
                <td>{key.scope}</td>
                <td>{key.created_by?.email ?? '—'}</td>
                <td>{when(key.created_at)}</td>
                <td>{when(key.last_used_at)}</td>
                <td>{key.revoked_at ? `Revoked ${when(key.revoked_at)}` : 'Active'}</td>
                <td>
                  {!key.revoked_at && (
                    <>
                      <button type="button" onClick={() => rotate.mutate(key)} aria-label={`Rotate ${key.name}`}>
                        Rotate
                      </button>{' '}
                      <button type="button" className="danger" onClick={() => revoke.mutate(key)} aria-label={`Revoke ${key.name}`}>
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
