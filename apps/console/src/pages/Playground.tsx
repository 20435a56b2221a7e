import type { ResponseAnalysis } from '@persona-api/client';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { messageOf } from '../api';
import { BarChart } from '../charts';
import { useSignedIn } from '../session';

interface Turn {
  personaId: string;
  /** The stored response, which the next turn continues (previous_response_id). */
  responseId: string | null;
  question: string;
  answer: string;
  credits: number | null;
  analysis: ResponseAnalysis | null;
  done: boolean;
}

/** `value`, once it has stopped changing for `ms`: the cost preview is counted when typing pauses. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The stored response a message to `personaId` continues: the last answered turn, when the conversation is
 * with that persona; a message to another persona starts a new conversation.
 */
function continuedResponse(turns: readonly Turn[], personaId: string): string | undefined {
  if (turns.at(-1)?.personaId !== personaId) return undefined;
  const answered = turns.findLast((turn) => turn.responseId !== null);
  return answered?.personaId === personaId ? (answered.responseId ?? undefined) : undefined;
}

const EMOTIONS = ['joy', 'trust', 'fear', 'surprise', 'sadness', 'disgust', 'anger', 'anticipation'] as const;

/**
 * Talk to a persona: answers stream in; each turn shows its credits and, with analysis on, the analysis panel.
 * Turns to the same persona are one conversation, continued on the server by `previous_response_id`.
 */
export function Playground() {
  const { api } = useSignedIn();
  const personas = useQuery({ queryKey: ['personas'], queryFn: async () => (await api.GET('/personas', { params: { query: { limit: 100 } } })).data.data });
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [personaId, setPersonaId] = useState('');
  const [message, setMessage] = useState('Would you pay $18 per seat for forecasting?');
  const chosen = personaId || personas.data?.[0]?.id || '';
  const continues = continuedResponse(turns, chosen);
  const draft = useSettled({ persona: chosen, input: message.trim(), previous: continues }, 400);
  // What the next message's input costs, the conversation it continues included (POST /responses/input_tokens).
  const cost = useQuery({
    queryKey: ['input-tokens', draft],
    enabled: draft.persona !== '' && draft.input !== '',
    queryFn: async () =>
      (
        await api.POST('/responses/input_tokens', {
          body: { model: 'service-1', persona_id: draft.persona, input: draft.input, ...(draft.previous ? { previous_response_id: draft.previous } : {}) },
        })
      ).data,
  });

  const send = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const question = String(form.get('input'));
    const personaId = String(form.get('persona'));
    const analysisMode = form.get('analysis') === 'on';
    setBusy(true);
    setError(null);
    const index = turns.length;
    const previous = continuedResponse(turns, personaId);
    const update = (change: Partial<Turn>) => setTurns((all) => all.map((turn, i) => (i === index ? { ...turn, ...change } : turn)));
    setTurns((all) => [...all, { personaId, responseId: null, question, answer: '', credits: null, analysis: null, done: false }]);
    try {
      const stream = await api.stream('/responses', {
        body: {
          model: 'service-1',
          persona_id: personaId,
          input: question,
          analysis_mode: analysisMode,
          ...(previous ? { previous_response_id: previous } : {}),
        },
      });
      let answer = '';
      for await (const item of stream) {
        if (item.type === 'response.output_text.delta') {
          answer += item.delta;
          update({ answer });
        } else if (item.type === 'response.completed') {
          update({ responseId: item.response.id, credits: item.response.usage?.credits_used ?? null, analysis: item.response.analysis ?? null, done: true });
        }
      }
      update({ done: true });
    } catch (caught) {
      setError(messageOf(caught));
      update({ done: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      {personas.isError && <p role="alert">{messageOf(personas.error)}</p>}
      <form onSubmit={send} className="stack">
        <label>
          Persona
          <select name="persona" required value={chosen} onChange={(event) => setPersonaId(event.target.value)}>
            {(personas.data ?? []).map((persona) => (
              <option key={persona.id} value={persona.id}>
                {persona.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Message
          <textarea name="input" required rows={3} maxLength={4000} value={message} onChange={(event) => setMessage(event.target.value)} />
        </label>
        {cost.data && (
          <p className="muted" data-testid="input-cost">
            {cost.data.input_tokens.toLocaleString()} input tokens{draft.previous ? ' with the conversation so far' : ''}: at least {cost.data.credits.toLocaleString()}{' '}
            credits, plus the answer.
          </p>
        )}
        <label className="inline">
          <input type="checkbox" name="analysis" /> Analysis panel (+5 credits)
        </label>
        <div className="inline">
          <button type="submit" disabled={busy || !personas.data?.length}>
            {busy ? 'Answering…' : 'Send'}
          </button>
          <button type="button" disabled={busy || turns.length === 0} onClick={() => setTurns([])}>
            New conversation
          </button>
        </div>
      </form>
      {error && <p role="alert">{error}</p>}
      {turns.length === 0 && (
        <p>Pick a persona and ask something; the answer streams in as it is written, and the persona remembers the conversation.</p>
      )}
      <ol className="turns">
        {turns.map((turn, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are only appended
          <li key={index} className="turn">
            <p className="question">{turn.question}</p>
            <p className="answer" data-testid="answer" aria-live="polite" aria-busy={!turn.done}>
              {turn.answer}
            </p>
            {turn.credits !== null && <p className="credits" data-testid="turn-credits">{turn.credits} credits</p>}
            {turn.analysis && (
              <div className="analysis">
                <p>
                  <strong>Sentiment:</strong> {turn.analysis.sentiment.label} ({turn.analysis.sentiment.score.toFixed(2)})
                </p>
                <p>{turn.analysis.summary}</p>
                <BarChart title="Emotions" bars={EMOTIONS.map((emotion) => ({ label: emotion, value: Math.round(turn.analysis!.emotional_metrics[emotion] * 100) }))} unit="%" />
              </div>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
