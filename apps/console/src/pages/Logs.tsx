import type { StoredChatCompletion } from '@persona-api/client';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../api';
import { useSignedIn } from '../session';

/** `campaign=spring` → `{campaign: 'spring'}`; anything else is no filter (null) or an error (a string). */
function filterOf(text: string): Record<string, string> | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const at = trimmed.indexOf('=');
  if (at <= 0 || at === trimmed.length - 1) return 'Write the filter as key=value, e.g. campaign=spring.';
  return { [trimmed.slice(0, at).trim()]: trimmed.slice(at + 1).trim() };
}

const answerOf = (completion: StoredChatCompletion): string => {
  const message = completion.choices[0]?.message;
  if (message?.content) return message.content;
  const calls = message?.tool_calls ?? [];
  return calls.length > 0 ? `Tool calls: ${calls.map((call) => call.function.name).join(', ')}` : '';
};

const metadataText = (metadata: Record<string, string>) =>
  Object.entries(metadata)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

/** One completion: what it was asked (its request messages), what it answered, its usage and metadata. */
function CompletionDetail({ completion, onDeleted }: { completion: StoredChatCompletion; onDeleted: () => void }) {
  const { api } = useSignedIn();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const messages = useQuery({
    queryKey: ['chat-completion-messages', completion.id],
    queryFn: async () => (await api.GET('/chat/completions/{id}/messages', { params: { path: { id: completion.id }, query: { limit: 100 } } })).data,
  });
  const remove = async () => {
    try {
      await api.DELETE('/chat/completions/{id}', { params: { path: { id: completion.id } } });
      onDeleted();
    } catch (caught) {
      setError(messageOf(caught));
    }
  };
  return (
    <article className="card" aria-labelledby="completion-title">
      <h2 id="completion-title">{completion.id}</h2>
      <p className="muted">
        {new Date(completion.created * 1000).toLocaleString()} · persona {completion.persona_id} · {completion.usage.prompt_tokens.toLocaleString()} +{' '}
        {completion.usage.completion_tokens.toLocaleString()} tokens · {completion.usage.credits_used.toLocaleString()} credits
        {Object.keys(completion.metadata).length > 0 && ` · ${metadataText(completion.metadata)}`}
      </p>
      {messages.isError && <p role="alert">{messageOf(messages.error)}</p>}
      <ol className="turns" aria-label="Messages">
        {messages.data?.data.map((message) => (
          <li key={message.id} className="turn">
            <strong>{message.role}</strong>
            {message.name && <span className="muted"> ({message.name})</span>}: {message.content ?? (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`).join(', ')}
          </li>
        ))}
        <li className="turn" data-testid="completion-answer">
          <strong>assistant</strong>: {answerOf(completion)}
        </li>
      </ol>
      {messages.data?.has_more && <p className="muted">Only the first 100 messages are shown.</p>}
      {error && <p role="alert">{error}</p>}
      {confirming ? (
        <p className="row">
          Delete this completion for good? Its credits stay in usage.{' '}
          <button type="button" className="danger" onClick={() => void remove()}>
            Delete for good
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </p>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
    </article>
  );
}

/** The account's stored chat completions, latest first, filtered by a metadata pair, a page at a time. */
export function Logs() {
  const { api } = useSignedIn();
  const queryClient = useQueryClient();
  const [filterText, setFilterText] = useState('');
  const [metadata, setMetadata] = useState<Record<string, string> | null>(null);
  const [filterError, setFilterError] = useState<string | null>(null);
  const [selected, setSelected] = useState<StoredChatCompletion | null>(null);
  const pages = useInfiniteQuery({
    queryKey: ['chat-completions', metadata],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (await api.GET('/chat/completions', { params: { query: { order: 'desc', limit: 20, ...(metadata ? { metadata } : {}), ...(pageParam ? { cursor: pageParam } : {}) } } }))
        .data,
    getNextPageParam: (page) => (page.has_more ? (page.next_cursor ?? undefined) : undefined),
  });
  const applyFilter = (event: FormEvent) => {
    event.preventDefault();
    const parsed = filterOf(filterText);
    if (typeof parsed === 'string') return setFilterError(parsed);
    setFilterError(null);
    setSelected(null);
    setMetadata(parsed);
  };
  const completions = pages.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Chat completion logs</h1>
      <p className="muted">Every completed POST /chat/completions of this account is kept here until it is deleted, latest first.</p>
      <form className="row" onSubmit={applyFilter} aria-label="Filter">
        <label className="inline">
          Metadata
          <input value={filterText} onChange={(event) => setFilterText(event.target.value)} placeholder="campaign=spring" />
        </label>
        <button type="submit">Filter</button>
      </form>
      {filterError && <p role="alert">{filterError}</p>}
      {pages.isPending && <p role="status">Loading logs…</p>}
      {pages.isError && <p role="alert">{messageOf(pages.error)}</p>}
      {pages.data && completions.length === 0 && !pages.hasNextPage && (
        <p>{metadata ? `No chat completion has ${metadataText(metadata)}.` : 'No chat completions yet: call POST /chat/completions with a key from API keys.'}</p>
      )}
      {completions.length > 0 && (
        <table>
          <caption className="muted">Chat completions</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Answer</th>
              <th scope="col">Tokens</th>
              <th scope="col">Credits</th>
              <th scope="col">Metadata</th>
            </tr>
          </thead>
          <tbody>
            {completions.map((completion) => (
              <tr key={completion.id} className={completion.id === selected?.id ? 'highlight' : undefined}>
                <td>{new Date(completion.created * 1000).toLocaleString()}</td>
                <td>
                  <button type="button" className="link" onClick={() => setSelected(completion)}>
                    {answerOf(completion).slice(0, 80) || completion.id}
                  </button>
                </td>
                <td>{completion.usage.total_tokens.toLocaleString()}</td>
                <td>{completion.usage.credits_used.toLocaleString()}</td>
                <td>{metadataText(completion.metadata)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages.hasNextPage && (
        <button type="button" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
          {/* A filtered page looks at a bounded stretch of the logs: it may come back empty with more to search. */}
          {completions.length === 0 ? 'Search older logs' : 'Load more'}
        </button>
      )}
      {selected && (
        <CompletionDetail
          key={selected.id}
          completion={selected}
          onDeleted={() => {
            setSelected(null);
            void queryClient.invalidateQueries({ queryKey: ['chat-completions'] });
          }}
        />
      )}
    </section>
  );
}
