import type { MeetingSchemaEvidenceSpan, MeetingSchemaFieldValue } from '@persona-api/client';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { messageOf } from '../api';
import { BarChart, LineChart } from '../charts';
import { useSignedIn } from '../session';

/** A schema field's value, whatever its type (text, number, yes/no, list, amount, person), as text. */
function valueText(value: MeetingSchemaFieldValue['value']): string {
  if (value === null || value === undefined) return 'not found';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return value.toLocaleString();
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(', ');
  if ('amount' in value) return `${value.amount.toLocaleString()} ${value.currency}`;
  return value.title ? `${value.name} (${value.title})` : value.name;
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

/** Pick one of a list, with an empty state that says what to do. */
function Picker<T extends { id: string }>({ label, items, empty, name, selected, onSelect }: {
  label: string;
  items: T[] | undefined;
  empty: string;
  name: (item: T) => string;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  if (items && items.length === 0) return <p>{empty}</p>;
  return (
    <label>
      {label}
      <select value={selected ?? ''} onChange={(event) => onSelect(event.target.value)}>
        <option value="" disabled>
          Choose…
        </option>
        {(items ?? []).map((item) => (
          <option key={item.id} value={item.id}>
            {name(item)}
          </option>
        ))}
      </select>
    </label>
  );
}

function VideoAnalysisView() {
  const { api } = useSignedIn();
  const [id, setId] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['video-analyses'], queryFn: async () => (await api.GET('/video-analyses', { params: { query: { limit: 50 } } })).data.data });
  const detail = useQuery({
    queryKey: ['video-analysis', id],
    enabled: Boolean(id),
    queryFn: async () => (await api.GET('/video-analyses/{id}', { params: { path: { id: id! } } })).data,
    refetchInterval: (query) => (query.state.data && query.state.data.status !== 'completed' && query.state.data.status !== 'failed' ? 2000 : false),
  });
  const result = detail.data?.result ?? null;
  const end = result?.chunks.at(-1)?.end_seconds ?? 1;
  return (
    <section aria-labelledby="video-title">
      <h2 id="video-title">Video analysis</h2>
      <Picker label="Analysis" items={list.data} empty="No video analyses yet: upload a video under Files and POST /video-analyses." name={(item) => item.title} selected={id} onSelect={setId} />
      {(list.error || detail.error) && <p role="alert">{messageOf(list.error ?? detail.error)}</p>}
      {detail.data && !result && <p role="status">Analysis {detail.data.status}… (this page refreshes on its own)</p>}
      {result && (
        <>
          <p>
            <strong>Overall score {result.overall_score}.</strong> {result.summary}
          </p>
          {/* Each chunk's valence at its middle, on an axis as long as the video, so the arc lines up with the brand timeline below. */}
          <LineChart
            title="Emotional arc (valence over time)"
            xMax={end}
            points={result.chunks.map((chunk) => ({ x: (chunk.start_seconds + chunk.end_seconds) / 2, y: chunk.valence, label: `${clock(chunk.start_seconds)}–${clock(chunk.end_seconds)}` }))}
          />
          <figure className="chart">
            <figcaption>Brand on screen</figcaption>
            <svg role="img" aria-label={`Brand on screen: ${result.chunks.filter((chunk) => chunk.brand_visible).map((chunk) => `${clock(chunk.start_seconds)}–${clock(chunk.end_seconds)}`).join(', ') || 'never'}`} width="100%" viewBox="0 0 520 30">
              <rect x={0} y={8} width={520} height={14} fill="#d9e2ec" />
              {result.chunks
                .filter((chunk) => chunk.brand_visible)
                .map((chunk) => (
                  <rect key={chunk.index} x={(chunk.start_seconds / end) * 520} y={8} width={((chunk.end_seconds - chunk.start_seconds) / end) * 520} height={14} fill="#2456a6" />
                ))}
            </svg>
          </figure>
          <BarChart title="Scores" bars={Object.entries(result.scores).map(([name, value]) => ({ label: name.replaceAll('_', ' '), value: Number(value) }))} />
          <h3>Chunks</h3>
          <ol>
            {result.chunks.map((chunk) => (
              <li key={chunk.index}>
                {/* The signed link lasts an hour from the read: enough for the page that just fetched it. */}
                {chunk.frame_url ? (
                  <img
                    src={chunk.frame_url}
                    alt={`Frame at ${clock((chunk.start_seconds + chunk.end_seconds) / 2)}`}
                    width={160}
                    height={90}
                    style={{ objectFit: 'cover', display: 'block' }}
                  />
                ) : null}
                {clock(chunk.start_seconds)}–{clock(chunk.end_seconds)}: {chunk.description} <span className="muted">({chunk.dominant_emotion})</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function MeetingView() {
  const { api } = useSignedIn();
  const [id, setId] = useState<string | null>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['meetings'], queryFn: async () => (await api.GET('/meetings', { params: { query: { limit: 50 } } })).data.data });
  const ready = Boolean(id) && list.data?.find((meeting) => meeting.id === id)?.status === 'done';
  const transcript = useQuery({ queryKey: ['transcript', id], enabled: ready, queryFn: async () => (await api.GET('/meetings/{id}/transcript', { params: { path: { id: id! } } })).data });
  const analysis = useQuery({ queryKey: ['meeting-analysis', id], enabled: ready, queryFn: async () => (await api.GET('/meetings/{id}/analysis', { params: { path: { id: id! } } })).data });
  const schemaResults = useQuery({
    queryKey: ['schema-results', id],
    enabled: ready,
    queryFn: async () => (await api.GET('/meetings/{id}/schema-results', { params: { path: { id: id! } } })).data.data,
  });
  const jumpTo = (span: MeetingSchemaEvidenceSpan) => {
    const segment = transcript.data?.segments.findLast((candidate) => candidate.start <= span.timestamp_start + 0.001) ?? transcript.data?.segments[0];
    if (!segment) return;
    setHighlight(segment.id);
    document.getElementById(`segment-${segment.id}`)?.scrollIntoView({ block: 'center' });
  };
  const error = list.error ?? transcript.error ?? analysis.error ?? schemaResults.error;
  return (
    <section aria-labelledby="meeting-title">
      <h2 id="meeting-title">Meeting</h2>
      <Picker label="Meeting" items={list.data} empty="No meetings yet: POST /meetings with a recording or a meeting link." name={(item) => `${item.title ?? item.id} (${item.status})`} selected={id} onSelect={setId} />
      {error && <p role="alert">{messageOf(error)}</p>}
      {id && !ready && <p role="status">This meeting has no transcript yet (it is not done).</p>}
      {analysis.data && (
        <>
          <p>{analysis.data.summary}</p>
          <BarChart title="Talk ratio" bars={analysis.data.talk_ratio.map((speaker) => ({ label: speaker.speaker, value: Math.round(speaker.ratio * 100) }))} unit="%" />
          <h3>Action items</h3>
          {analysis.data.action_items.length === 0 ? (
            <p>No action items were found.</p>
          ) : (
            <ul>
              {analysis.data.action_items.map((item) => (
                <li key={item.text}>
                  {item.text} {item.owner && <span className="muted">— {item.owner}</span>}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {schemaResults.data && schemaResults.data.length > 0 && (
        <>
          <h3>Schema results</h3>
          {schemaResults.data.map((result) => (
            <div key={result.id} className="card">
              <h4>
                {result.schema_name} <span className="muted">(overall score {result.overall_score})</span>
              </h4>
              <table>
                <caption className="muted">What the schema extracted</caption>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Value</th>
                    <th scope="col">Score</th>
                  </tr>
                </thead>
                <tbody>
                  {result.field_values.map((field) => (
                    <tr key={field.field_name}>
                      <th scope="row">{field.field_label}</th>
                      <td>{valueText(field.value)}</td>
                      <td>{field.score ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <ul>
                {result.evidence.map((span) => (
                  <li key={`${span.field_name}-${span.timestamp_start}`}>
                    <strong>{span.field_name}:</strong>{' '}
                    <button type="button" className="link" onClick={() => jumpTo(span)}>
                      “{span.text}” ({clock(span.timestamp_start)})
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </>
      )}
      {transcript.data && (
        <>
          <h3>Transcript</h3>
          <ol className="transcript">
            {transcript.data.segments.map((segment) => (
              <li key={segment.id} id={`segment-${segment.id}`} className={segment.id === highlight ? 'highlight' : undefined}>
                <span className="muted">{clock(segment.start)}</span> <strong>{segment.speaker}:</strong> {segment.text}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function FocusGroupView() {
  const { api } = useSignedIn();
  const [id, setId] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['focus-groups'], queryFn: async () => (await api.GET('/focus-groups', { params: { query: { limit: 50 } } })).data.data });
  const group = list.data?.find((item) => item.id === id);
  return (
    <section aria-labelledby="focus-title">
      <h2 id="focus-title">Focus group</h2>
      <Picker label="Focus group" items={list.data} empty="No focus groups yet: POST /focus-groups with a question and some personas." name={(item) => item.question} selected={id} onSelect={setId} />
      {list.error && <p role="alert">{messageOf(list.error)}</p>}
      {group?.summary && (
        <>
          <p>{group.summary.consensus}</p>
          <BarChart title="Sentiment of the answers" bars={(['positive', 'neutral', 'negative', 'mixed'] as const).map((sentiment) => ({ label: sentiment, value: group.summary!.sentiment_breakdown[sentiment] }))} />
          {group.summary.key_themes.length > 0 && <p>Key themes: {group.summary.key_themes.join(' · ')}</p>}
        </>
      )}
      {group && (
        <ul className="grid">
          {group.answers.map((answer) => (
            <li key={answer.persona.id} className="card">
              <h3>{answer.persona.name}</h3>
              <p className="muted">Sentiment: {answer.sentiment}</p>
              <p>{answer.answer}</p>
              {answer.key_points.length > 0 && (
                <ul aria-label={`Key points of ${answer.persona.name}`}>
                  {answer.key_points.map((point) => (
                    <li key={point}>{point}</li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Results as pictures: a video analysis, a meeting, a focus group. */
export function Results() {
  return (
    <section aria-labelledby="results-title">
      <h1 id="results-title">Results</h1>
      <VideoAnalysisView />
      <MeetingView />
      <FocusGroupView />
    </section>
  );
}
