import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../api';
import { useSignedIn } from '../session';

/** DECISIONS.md, Credits: a custom persona costs a flat 300 credits. */
const CUSTOM_PERSONA_CREDITS = 300;

/** The persona catalogue and the account's custom personas; creating one shows its cost first. */
export function Personas() {
  const { api } = useSignedIn();
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  const personas = useQuery({
    queryKey: ['personas', search],
    queryFn: async () => (await api.GET('/personas', { params: { query: { limit: 100, ...(search ? { search } : {}) } } })).data.data,
  });
  const create = useMutation({
    mutationFn: async (description: string) => (await api.POST('/personas', { body: { description } })).data,
    onSuccess: () => {
      setConfirming(null);
      void client.invalidateQueries({ queryKey: ['personas'] });
    },
  });
  const ask = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setConfirming(String(new FormData(event.currentTarget).get('description')));
  };
  return (
    <section aria-labelledby="personas-title">
      <h1 id="personas-title">Personas</h1>
      <label>
        Search the catalogue
        <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
      </label>
      {personas.isError && <p role="alert">{messageOf(personas.error)}</p>}
      {personas.data?.length === 0 && <p>No persona matches; try another word, or create your own below.</p>}
      <ul className="grid">
        {(personas.data ?? []).map((persona) => (
          <li key={persona.id} className="card">
            <h2>{persona.name}</h2>
            <p className="muted">
              {persona.category} · {persona.is_custom ? 'custom' : 'catalogue'}
            </p>
            <p>{persona.description}</p>
          </li>
        ))}
      </ul>
      <h2>Create a custom persona</h2>
      <form onSubmit={ask} className="stack">
        <label>
          Describe who they are
          <textarea name="description" required minLength={20} maxLength={2000} rows={3} />
        </label>
        <button type="submit">Continue</button>
      </form>
      {confirming && (
        <div className="callout" role="dialog" aria-modal="false" aria-labelledby="confirm-title">
          <p id="confirm-title">
            Creating this persona costs <strong>{CUSTOM_PERSONA_CREDITS} credits</strong>, refunded if it fails.
          </p>
          <button type="button" onClick={() => create.mutate(confirming)} disabled={create.isPending}>
            {create.isPending ? 'Creating…' : `Pay ${CUSTOM_PERSONA_CREDITS} credits and create`}
          </button>{' '}
          <button type="button" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      {create.isError && <p role="alert">{messageOf(create.error)}</p>}
    </section>
  );
}
