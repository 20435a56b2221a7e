import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { reconcileCounts } from '../../src/billing/reconcile.js';
import { expireMeetingMedia, meetingJobs, moveMeeting, type MeetingJobDeps } from '../../src/resources/meetings/jobs.js';
import { withChange } from '../../src/resources/meetings/lifecycle.js';
import { botJobs } from '../../src/resources/meetings/bot-sync.js';
import { SIMULATED_TIMELINE, simulatorProvider } from '../../src/resources/meetings/simulator.js';
import { openAiTranscriber } from '../../src/resources/meetings/transcriber.js';
import { meetings } from '../../src/resources/meetings/table.js';
import { countTranscriptionMinutes } from '../../src/resources/meetings/repository.js';
import { fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { errorOf, TestClock, useHarness, useTenant, type Tenant } from '../support/harness.js';
import { openTestDatabase } from '../support/database.js';
import { openTestJobQueue } from '../support/jobs.js';
import { storeFile } from '../support/uploads.js';
import { fakeSpeechToText } from '../support/speech.js';
import { MemoryStorage } from './files/memory-storage.js';

// Meetings: imports of WebVTT/SRT/JSON transcripts, the development simulator walking the state machine,
// cancel from every state, the transcript and the analysis computed from it, deletion, roles.

const fixture = (name: string) => readFileSync(new URL(`./meetings/fixtures/${name}`, import.meta.url));
const storage = new MemoryStorage();
const clock = new TestClock();
const engine = new SwitchableEngine();
let database: DatabaseHandle;
let queue: JobRuntime;
let deps: MeetingJobDeps;

afterAll(async () => {
  await queue?.stop({ timeoutMs: 1000 });
  await database?.close();
});

const h = useHarness(async () => {
  database = await openTestDatabase();
  deps = { db: database.db, storage, clock, engine, bot: simulatorProvider(clock), jobs: undefined as unknown as MeetingJobDeps['jobs'] };
  queue = await openTestJobQueue(database, [...meetingJobs(deps), ...botJobs(deps)]);
  deps.jobs = queue;
  return { database, clock, engine, services: { jobs: queue, storage } };
});
const t = useTenant(h);

/** A WAV file (PCM, 8 kHz mono) whose samples are the bytes of `marker`: a real container the fake server can tell apart. */
function wavOf(marker: string): Buffer {
  const data = Buffer.from(marker);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** An uploaded file of the tenant's workspace: a files row and its stored bytes. */
const uploaded = (tenant: Tenant, name: string, type: string, bytes: Buffer) =>
  storeFile(database.db, storage, { workspaceId: tenant.workspaceId, name, type, content: bytes, now: clock.now() });

async function imported(name: string, type: string, bytes = fixture(name)) {
  const fileId = await uploaded(t, name, type, bytes);
  const created = await h.post('/meetings', t.key, { workspace_id: t.workspaceId, transcript_file_id: fileId, title: `Import of ${name}` });
  expect(created.status).toBe(200);
  return created.body;
}

const sentenceTextOf = (transcript: { segments: { text: string }[] }) => transcript.segments.map((segment) => segment.text).join('\n');

describe('imported meetings', () => {
  it('imports a WebVTT call: done, speakers and segment times from the cues, an analysis measured from it', async () => {
    const meeting = await imported('cs-renewal.vtt', 'text/vtt');
    expect(meeting).toMatchObject({ status: 'pending', source: 'import', meeting_url: null, analysis_status: 'pending' });
    expect(errorOf(await h.get(`/meetings/${meeting.id}/transcript`, t.key)).code).toBe('invalid_state');
    await queue.drain();

    const done = (await h.get(`/meetings/${meeting.id}`, t.key)).body;
    expect(done).toMatchObject({ status: 'done', has_analysis: true, analysis_status: 'completed', participant_count: 2 });
    expect(done.status_changes.map((change: { code: string }) => change.code)).toEqual(['pending', 'recording_done', 'done']);
    expect(done.status_detail.code).toBe('done');

    const transcript = (await h.get(`/meetings/${meeting.id}/transcript`, t.key)).body;
    expect(transcript.speakers).toEqual([
      { id: 'spk_1', name: 'Priya Natarajan', is_host: true },
      { id: 'spk_2', name: 'Tom Becker', is_host: false },
    ]);
    expect(transcript.segments).toHaveLength(9);
    expect(transcript.segments[1]).toMatchObject({ id: 'seg_0002', speaker_id: 'spk_2', start: 9.8, end: 21.4 });
    expect(transcript.segments[1].text).toBe(
      'Happy to. Overall the team likes the dashboard, but the weekly report export has been slow since the last release.',
    );
    expect(transcript.duration_seconds).toBe(90);

    const analysis = (await h.get(`/meetings/${meeting.id}/analysis`, t.key)).body;
    const talk = analysis.talk_ratio.reduce((sum: number, entry: { ratio: number }) => sum + entry.ratio, 0);
    expect(talk).toBeCloseTo(1, 2);
    const tom = analysis.talk_ratio.find((entry: { speaker: string }) => entry.speaker === 'Tom Becker');
    // Tom's cues: 11.6 + 11 + 11.5 + 8.5 seconds.
    expect(tom.talk_time_seconds).toBeCloseTo(42.6, 1);
    expect(analysis.questions.map((q: { text: string; answered: boolean }) => [q.text, q.answered])).toEqual([
      ['How many people on your side use the reports every week?', true],
      ['Would a training session for the new analysts help with onboarding?', true],
    ]);
    // Extractive: every action item, next step and risk is a sentence of the transcript.
    const text = sentenceTextOf(transcript);
    for (const item of [
      ...analysis.action_items.map((a: { text: string }) => a.text),
      ...analysis.next_steps,
      ...analysis.risks.map((r: { text: string }) => r.text),
    ]) {
      expect(text).toContain(item);
    }
    expect(analysis.action_items.map((a: { owner: string }) => a.owner)).toContain('Priya Natarajan');
    // Due dates read from the day of the call (an import's: when it was created, Sunday 2026-11-15): "today",
    // and "by Friday" as the deadline over "for Tuesday"; a condition ("if the export stays slow we will…") is no commitment.
    expect(clock.now().toISOString().slice(0, 10)).toBe('2026-11-15');
    expect(analysis.action_items.map((a: { text: string; due: string | null }) => [a.text, a.due])).toEqual([
      ['I will escalate the export bug to our support engineers today and send you the ticket number.', '2026-11-15'],
      ['I will schedule the training for Tuesday and follow up on the renewal terms by Friday.', '2026-11-20'],
    ]);
    expect(analysis.risks.some((risk: { text: string; severity: string }) => risk.text.includes('competitor'))).toBe(true);
    expect(analysis.topics.map((topic: { name: string }) => topic.name)).toEqual(expect.arrayContaining(['Renewal', 'Onboarding', 'Competition']));
  });

  it('asks an upstream model for the summary, action items and risks, keeping measurements in code and owners real', async () => {
    const { fake, engine: upstream } = await fakeUpstreamEngine();
    try {
      fake.enqueue({
        content: JSON.stringify({
          summary: 'Quarterly review: the report export is slow and puts the April renewal at risk; support escalation and analyst training agreed.',
          key_points: ['About forty analysts use the reports every week.', 'A competitor is being evaluated for analytics.'],
          action_items: [
            { text: 'Escalate the export bug to support and send the ticket number', owner_speaker_id: 'spk_1', due: null },
            { text: 'Share the renewal budget', owner_speaker_id: 'spk_9', due: '2026-02-30' },
            { text: 'Confirm Tuesday for the training', owner_speaker_id: 'spk_2', due: '2026-11-17' },
          ],
          next_steps: ['Training session on Tuesday afternoon.'],
          risks: [{ text: 'Renewal in April depends on the export speed.', severity: 'high' }],
          sentiment: {
            overall: { label: 'mixed', score: -0.1 },
            per_speaker: [
              { speaker_id: 'spk_2', label: 'negative', score: -0.4 },
              { speaker_id: 'spk_2', label: 'positive', score: 0.9 },
            ],
          },
        }),
      });
      const meeting = await imported('cs-renewal.vtt', 'text/vtt');
      await engine.using(upstream, () => queue.drain());
      expect(fake.pending).toBe(0);
      // The model got the speaker-labelled, timed transcript and the measured talk ratio, and a schema to answer in.
      const request = fake.requests.at(-1)!.body;
      expect(request.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'meeting_analysis' } });
      const prompt = request.messages.map((message: { content: string }) => message.content).join('\n');
      expect(prompt).toContain('spk_2 (Tom Becker): About forty analysts.');
      expect(prompt).toMatch(/talk ratio Tom Becker \d+%/);

      const analysis = (await h.get(`/meetings/${meeting.id}/analysis`, t.key)).body;
      expect(analysis.summary).toMatch(/^Quarterly review/);
      expect(analysis.action_items).toEqual([
        { text: 'Escalate the export bug to support and send the ticket number', owner: 'Priya Natarajan', owner_speaker_id: 'spk_1', due: null },
        // An owner who is not a speaker of the call, and a date that does not exist, are not kept.
        { text: 'Share the renewal budget', owner: null, owner_speaker_id: null, due: null },
        { text: 'Confirm Tuesday for the training', owner: 'Tom Becker', owner_speaker_id: 'spk_2', due: '2026-11-17' },
      ]);
      expect(analysis.risks).toEqual([{ text: 'Renewal in April depends on the export speed.', severity: 'high' }]);
      // One sentiment per real speaker, named from the transcript.
      expect(analysis.sentiment.per_speaker).toEqual([{ speaker_id: 'spk_2', speaker: 'Tom Becker', label: 'negative', score: -0.4 }]);
      // Measured in code, never taken from the model: the same as on the offline engine.
      expect(analysis.talk_ratio.find((entry: { speaker: string }) => entry.speaker === 'Tom Becker').talk_time_seconds).toBeCloseTo(42.6, 1);
      expect(analysis.questions).toHaveLength(2);
    } finally {
      await fake.close();
    }
  });

  it('keeps the transcript when the analysis model fails: done, analysis failed with the reason', async () => {
    const { fake, engine: upstream } = await fakeUpstreamEngine();
    try {
      fake.setDefault({
        status: 400,
        errorBody: { error: { message: 'context length exceeded', type: 'invalid_request_error', code: 'context_length_exceeded' } },
      });
      const meeting = await imported('cs-renewal.vtt', 'text/vtt');
      await engine.using(upstream, () => queue.drain());
      const done = (await h.get(`/meetings/${meeting.id}`, t.key)).body;
      expect(done).toMatchObject({
        status: 'done',
        analysis_status: 'failed',
        has_analysis: false,
        status_detail: { code: 'done', sub_code: 'analysis_failed' },
      });
      expect(done.status_detail.message).toMatch(/^The transcript is ready; the analysis failed: /);
      expect((await h.get(`/meetings/${meeting.id}/transcript`, t.key)).body.segments).toHaveLength(9);
      expect(errorOf(await h.get(`/meetings/${meeting.id}/analysis`, t.key)).code).toBe('invalid_state');
    } finally {
      await fake.close();
    }
  });

  it('imports SRT with "Name:" speakers and JSON segments', async () => {
    const srt = await imported('discovery.srt', 'application/x-subrip');
    const json = await imported('qbr.json', 'application/json');
    await queue.drain();
    const srtTranscript = (await h.get(`/meetings/${srt.id}/transcript`, t.key)).body;
    expect(srtTranscript.speakers.map((s: { name: string }) => s.name)).toEqual(['Alex Moreno', 'Jordan Kim']);
    expect(srtTranscript.segments[0]).toMatchObject({
      start: 0.5,
      end: 7,
      text: 'Thanks for taking the call. Can you walk me through how your team handles quotes today?',
    });
    const jsonTranscript = (await h.get(`/meetings/${json.id}/transcript`, t.key)).body;
    expect(jsonTranscript.segments).toHaveLength(5);
    expect(jsonTranscript.word_count).toBe(jsonTranscript.segments.reduce((n: number, s: { text: string }) => n + s.text.split(/\s+/).length, 0));
    const analysis = (await h.get(`/meetings/${json.id}/analysis`, t.key)).body;
    expect(analysis.action_items[0]).toMatchObject({ owner: 'Sam Ortiz', owner_speaker_id: 'spk_1' });
  });

  it('fails with the real reason: an unreadable transcript, a recording without speech-to-text', async () => {
    const broken = await imported('notes.vtt', 'text/vtt', Buffer.from('WEBVTT\n\nthis has no cue timings at all\n'));
    const audioId = await uploaded(t, 'call.mp3', 'audio/mpeg', Buffer.from('ID3 not really audio'));
    const audio = (await h.post('/meetings', t.key, { workspace_id: t.workspaceId, recording_file_id: audioId })).body;
    await queue.drain();
    const failed = (await h.get(`/meetings/${broken.id}`, t.key)).body;
    expect(failed).toMatchObject({ status: 'fatal', analysis_status: 'skipped', status_detail: { code: 'fatal', sub_code: 'transcript_unreadable' } });
    expect(failed.status_detail.message).toContain('no cues');
    const transcript = await h.get(`/meetings/${broken.id}/transcript`, t.key);
    expect(transcript.status).toBe(409);
    expect(transcript.body.error.message).toContain('no cues');
    expect((await h.get(`/meetings/${audio.id}`, t.key)).body.status_detail).toMatchObject({ code: 'fatal', sub_code: 'transcription_not_configured' });
    expect(errorOf(await h.get(`/meetings/${audio.id}/analysis`, t.key)).code).toBe('invalid_state');
  });

  it('refuses a file of another kind or workspace, and sources that conflict', async () => {
    const vtt = await uploaded(t, 'x.vtt', 'text/vtt', fixture('cs-renewal.vtt'));
    expect(errorOf(await h.post('/meetings', t.key, { workspace_id: t.workspaceId, recording_file_id: vtt }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'recording_file_id',
    });
    expect(
      errorOf(await h.post('/meetings', t.key, { workspace_id: t.workspaceId, transcript_file_id: vtt, meeting_url: 'https://meet.google.com/abc-defg-hij' })),
    ).toMatchObject({ code: 'parameter_conflict' });
    expect(errorOf(await h.post('/meetings', t.key, { workspace_id: t.workspaceId, transcript_file_id: vtt, join_type: 'immediate' }))).toMatchObject({
      code: 'parameter_conflict',
      param: 'join_type',
    });
    expect(errorOf(await h.post('/meetings', t.key, { workspace_id: t.workspaceId }))).toMatchObject({ code: 'missing_parameter', param: 'meeting_url' });
    const other = await h.tenant();
    const theirs = await uploaded(other, 'y.vtt', 'text/vtt', fixture('cs-renewal.vtt'));
    expect(errorOf(await h.post('/meetings', t.key, { workspace_id: t.workspaceId, transcript_file_id: theirs }))).toMatchObject({
      code: 'resource_not_found',
      param: 'transcript_file_id',
    });
  });
});

describe('imported recordings (speech-to-text)', () => {
  it('transcribes audio through the configured /audio/transcriptions server, or fails with its answer', async () => {
    const stt = await fakeSpeechToText((body) =>
      body.includes('good audio')
        ? {
            status: 200,
            json: {
              text: 'x',
              language: 'english',
              duration: 14.2,
              segments: [
                { start: 0, end: 6.1, text: ' Thanks for joining the renewal call today.', avg_logprob: -0.1 },
                { start: 6.4, end: 14.2, text: ' Our budget is approved, but I am worried about the rollout timeline?', avg_logprob: -0.3 },
              ],
            },
          }
        : { status: 500, json: { error: { message: 'model overloaded' } } },
    );
    deps.transcriber = openAiTranscriber({ baseUrl: stt.url, model: 'whisper-test', apiKey: 'sk-local' });
    try {
      const good = (
        await h.post('/meetings', t.key, {
          workspace_id: t.workspaceId,
          recording_file_id: await uploaded(t, 'call.wav', 'audio/wav', wavOf('good audio')),
        })
      ).body;
      const bad = (
        await h.post('/meetings', t.key, {
          workspace_id: t.workspaceId,
          recording_file_id: await uploaded(t, 'other.wav', 'audio/wav', wavOf('bad audio')),
        })
      ).body;
      // SECURITY.md, Media: a playlist typed as audio is never sent on (it names other files).
      const playlist = (
        await h.post('/meetings', t.key, {
          workspace_id: t.workspaceId,
          recording_file_id: await uploaded(t, 'list.m3u8', 'audio/x-mpegurl', Buffer.from('#EXTM3U\n#EXTINF:3.0,\n/etc/passwd\n')),
        })
      ).body;
      await queue.drain();
      expect((await h.get(`/meetings/${playlist.id}`, t.key)).body.status_detail).toMatchObject({ code: 'fatal', sub_code: 'recording_unreadable' });
      expect(stt.bodies).toHaveLength(2);
      expect(stt.bodies[0]).toMatch(/^POST \/v1\/audio\/transcriptions Bearer sk-local/);
      expect(stt.bodies[0]).toContain('whisper-test');
      expect(stt.bodies[0]).toContain('verbose_json');
      expect((await h.get(`/meetings/${good.id}`, t.key)).body).toMatchObject({ status: 'done', has_analysis: true });
      const transcript = (await h.get(`/meetings/${good.id}/transcript`, t.key)).body;
      expect(transcript.segments.map((s: { text: string; start: number; end: number }) => [s.text, s.start, s.end])).toEqual([
        ['Thanks for joining the renewal call today.', 0, 6.1],
        ['Our budget is approved, but I am worried about the rollout timeline?', 6.4, 14.2],
      ]);
      expect(transcript.segments[0].confidence).toBeCloseTo(Math.exp(-0.1), 5);
      const failed = (await h.get(`/meetings/${bad.id}`, t.key)).body;
      expect(failed.status_detail).toMatchObject({ code: 'fatal', sub_code: 'transcription_failed' });
      expect(failed.status_detail.message).toContain('model overloaded');
    } finally {
      deps.transcriber = null;
      stt.server.close();
    }
  });
});

describe('the simulated bot', () => {
  it('announces its first change (joining) for when it starts, so the first poll is not a poll interval late', async () => {
    const bot = await simulatorProvider(clock).createBot({ meetingUrl: 'https://zoom.us/j/1', botName: 'Bot', joinAt: null, meetingId: 'mtg_announce' });
    expect(bot.next_change_at).toBe(clock.now().toISOString());
    expect((await simulatorProvider(clock).getBot(bot.id)).status_changes.map((c) => c.code)).toEqual(['joining_call']);
  });

  it('walks the state machine to done, labelled as simulated, with a transcript and analysis', async () => {
    const created = await h.post('/meetings', t.key, {
      workspace_id: t.workspaceId,
      meeting_url: 'https://us02web.zoom.us/j/84512739046?pwd=abc',
      title: 'Sim',
    });
    expect(created.body).toMatchObject({ status: 'pending', source: 'simulated_bot', join_type: 'immediate', bot_name: 'Persona Notetaker', title: 'Sim' });
    expect(created.body.status_detail.message).toMatch(/^Simulated:/);
    // The same call under another link form is the same meeting: one bot per call.
    const duplicate = await h.post('/meetings', t.key, { workspace_id: t.workspaceId, meeting_url: 'https://zoom.us/j/84512739046' });
    expect(errorOf(duplicate)).toMatchObject({ code: 'duplicate_resource', param: 'meeting_url' });
    // The simulated bot is created; its first poll is due when it starts joining (now).
    await queue.drain({ maxJobs: 1 });
    await queue.drain({ ignoreStartAfter: true, maxJobs: 1 });
    expect((await h.get(`/meetings/${created.body.id}`, t.key)).body.status).toBe('joining_call');
    // Half way through its timeline, one poll reads every change since: the call is being recorded.
    clock.advance(60_000);
    await queue.drain({ ignoreStartAfter: true, maxJobs: 1 });
    expect((await h.get(`/meetings/${created.body.id}`, t.key)).body.status).toBe('in_call_recording');
    // After the call, the next poll fetches the sample transcript and finishes the meeting.
    clock.advance(10 * 60_000);
    await queue.drain({ ignoreStartAfter: true });
    const done = (await h.get(`/meetings/${created.body.id}`, t.key)).body;
    expect(done.status_changes.map((c: { code: string }) => c.code)).toEqual([
      'pending',
      'joining_call',
      'in_waiting_room',
      'in_call_not_recording',
      'in_call_recording',
      'call_ended',
      'recording_done',
      'done',
    ]);
    expect(done.status_changes.filter((c: { message: string | null }) => c.message).every((c: { message: string }) => c.message.startsWith('Simulated:'))).toBe(
      true,
    );
    expect(done).toMatchObject({ status: 'done', has_analysis: true, participant_count: 2 });
    const transcript = (await h.get(`/meetings/${created.body.id}/transcript`, t.key)).body;
    expect(transcript.segments[0].text).toContain('simulated sample call');
    // 128 recorded seconds use 3 transcription minutes, the transcribed 14.2 s recording 1; transcript files none.
    expect((await h.get('/usage', t.key)).body.transcription).toMatchObject({ minutes_used: 3 + 1, minutes_remaining: 6_000 - 4 });
    // Done, the link is free again.
    expect((await h.post('/meetings', t.key, { workspace_id: t.workspaceId, meeting_url: 'https://zoom.us/j/84512739046' })).status).toBe(200);
  });

  it('validates links and schedules', async () => {
    const base = { workspace_id: t.workspaceId };
    expect(errorOf(await h.post('/meetings', t.key, { ...base, meeting_url: 'https://example.com/call/1' }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'meeting_url',
    });
    expect(
      errorOf(
        await h.post('/meetings', t.key, {
          ...base,
          meeting_url: 'https://meet.google.com/aaa-bbbb-ccc',
          join_type: 'immediate',
          join_at: '2026-11-16T12:00:00Z',
        }),
      ),
    ).toMatchObject({ code: 'parameter_conflict', param: 'join_at' });
    expect(
      errorOf(await h.post('/meetings', t.key, { ...base, meeting_url: 'https://meet.google.com/aaa-bbbb-ccc', join_at: '2027-06-01T12:00:00Z' })),
    ).toMatchObject({ code: 'invalid_parameter', param: 'join_at' });
    expect(errorOf(await h.post('/meetings', t.key, { ...base, meeting_url: 'https://meet.google.com/aaa-bbbb-ccc', join_type: 'scheduled' }))).toMatchObject({
      code: 'missing_parameter',
      param: 'join_at',
    });
    expect(
      errorOf(await h.post('/meetings', t.key, { ...base, meeting_url: 'https://meet.google.com/aaa-bbbb-ccc', schema_ids: ['msch_unknown1'] })),
    ).toMatchObject({ code: 'resource_not_found', param: 'schema_ids.0' });
    const scheduled = await h.post('/meetings', t.key, { ...base, meeting_url: 'https://meet.google.com/aaa-bbbb-ccc', join_at: '2027-01-20T15:00:00Z' });
    expect(scheduled.body).toMatchObject({ join_type: 'scheduled', join_at: '2027-01-20T15:00:00.000Z', status: 'pending' });
    // Not due yet: nothing moves.
    await queue.drain();
    expect((await h.get(`/meetings/${scheduled.body.id}`, t.key)).body.status).toBe('pending');
  });

  const cancellable = ['pending', 'joining_call', 'in_waiting_room', 'in_call_not_recording', 'in_call_recording'];
  it.each(cancellable.map((status, steps) => [status, steps] as const))('cancels from %s, and then never moves again', async (status, steps) => {
    const tenant = await h.tenant();
    const meeting = (
      await h.post('/meetings', tenant.key, {
        workspace_id: tenant.workspaceId,
        meeting_url: 'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0',
      })
    ).body;
    // The bot is created (still pending); then time moves to the step's change and one poll reads it.
    await queue.drain({ maxJobs: 1 });
    if (steps > 0) {
      const untilChange = SIMULATED_TIMELINE.slice(0, steps).reduce((sum, step) => sum + step.afterSeconds, 0);
      clock.advance(untilChange * 1000);
      await queue.drain({ ignoreStartAfter: true, maxJobs: 1 });
    }
    expect((await h.get(`/meetings/${meeting.id}`, tenant.key)).body.status).toBe(status);
    const cancelled = await h.post(`/meetings/${meeting.id}/cancel`, tenant.key, { reason: 'Customer asked not to record' });
    expect(cancelled.body).toMatchObject({ id: meeting.id, status: 'cancelled', cancelled_by: tenant.userId, cancel_reason: 'Customer asked not to record' });
    await queue.drain({ ignoreStartAfter: true });
    const after = (await h.get(`/meetings/${meeting.id}`, tenant.key)).body;
    expect(after).toMatchObject({ status: 'cancelled', analysis_status: 'skipped', has_analysis: false });
    expect(errorOf(await h.post(`/meetings/${meeting.id}/cancel`, tenant.key, {}))).toMatchObject({ code: 'invalid_state' });
    expect(errorOf(await h.get(`/meetings/${meeting.id}/transcript`, tenant.key)).code).toBe('invalid_state');
  });

  it('refuses to cancel a meeting past recording (done)', async () => {
    const meeting = await imported('qbr.json', 'application/json');
    await queue.drain();
    expect(errorOf(await h.post(`/meetings/${meeting.id}/cancel`, t.key, {}))).toMatchObject({ code: 'invalid_state' });
  });
});

describe('lists, deletion and roles', () => {
  it('lists newest first with a status filter, and deletes a meeting with its transcript', async () => {
    const tenant = await h.tenant();
    const first = (await h.post('/meetings', tenant.key, { workspace_id: tenant.workspaceId, meeting_url: 'https://meet.google.com/qqq-wwww-eee' })).body;
    h.clock.advance(1000);
    const second = (await h.post('/meetings', tenant.key, { workspace_id: tenant.workspaceId, meeting_url: 'https://meet.google.com/rrr-tttt-yyy' })).body;
    await h.post(`/meetings/${first.id}/cancel`, tenant.key, {});
    const all = (await h.get(`/meetings?workspace_id=${tenant.workspaceId}&limit=1`, tenant.key)).body;
    expect(all.data.map((m: { id: string }) => m.id)).toEqual([second.id]);
    expect(all.has_more).toBe(true);
    const cancelled = (await h.get('/meetings?status=cancelled', tenant.key)).body;
    expect(cancelled.data.map((m: { id: string }) => m.id)).toEqual([first.id]);
    expect((await h.delete(`/meetings/${first.id}`, tenant.key)).body).toEqual({ id: first.id, object: 'meeting', deleted: true });
    expect((await h.get(`/meetings/${first.id}`, tenant.key)).status).toBe(404);
  });

  it('counts transcription minutes when a meeting is done, and gives them back when it or its workspace is deleted', async () => {
    const tenant = await h.tenant({ tier: 'starter' });
    const second = (await h.post('/workspaces', tenant.key, { name: 'Calls' })).body.id;
    const now = clock.now();
    /** A transcribed recording of `seconds`, moved to done as the import job moves it. */
    const finished = async (workspaceId: string, seconds: number) => {
      const id = `mtg_min${String(seconds).replace('.', '_')}${workspaceId.slice(-6)}`;
      await database.db.insert(meetings).values({
        id,
        workspaceId,
        createdByUserId: tenant.userId,
        title: 'Recorded call',
        source: 'import',
        botName: 'Persona Notetaker',
        joinType: 'immediate',
        joinAt: now,
        status: 'recording_done',
        statusChanges: withChange([], { code: 'recording_done' }, now),
        participantCount: 2,
        analysisStatus: 'processing',
        schemaIds: [],
        transcribed: 1,
        createdAt: now,
        updatedAt: now,
      });
      const done = await database.db.transaction((tx) => moveMeeting(tx, id, { code: 'done' }, clock.now(), { recordedSeconds: seconds }));
      expect(done?.status).toBe('done');
      return id;
    };
    const minutesUsed = async () => (await h.get('/usage', tenant.key)).body.transcription.minutes_used;

    // ceil(seconds / 60) each: 61 s is 2 minutes, 60 s is 1, 600.5 s is 11.
    const a = await finished(tenant.workspaceId, 61);
    const b = await finished(tenant.workspaceId, 60);
    const c = await finished(second, 600.5);
    expect(await minutesUsed()).toBe(2 + 1 + 11);
    // Moving on from done (media expired) counts nothing more.
    await database.db.transaction((tx) => moveMeeting(tx, b, { code: 'media_expired' }, clock.now()));
    expect(await minutesUsed()).toBe(14);

    expect((await h.delete(`/meetings/${a}`, tenant.key)).status).toBe(200);
    expect(await minutesUsed()).toBe(1 + 11);
    // A second delete of the same meeting gives nothing back twice.
    expect((await h.delete(`/meetings/${a}`, tenant.key)).status).toBe(404);
    expect(await minutesUsed()).toBe(12);

    expect((await h.delete(`/workspaces/${second}`, tenant.key)).status).toBe(200);
    expect(await minutesUsed()).toBe(1);
    expect((await h.get(`/meetings/${c}`, tenant.key)).status).toBe(404);
    expect((await reconcileCounts(database.db)).filter((m) => m.id.startsWith(tenant.accountId))).toEqual([]);
  });

  it('lets viewers read but not create, cancel or delete', async () => {
    const viewer = await h.tenant();
    const added = await h.post(`/workspaces/${t.workspaceId}/members`, t.key, { email: viewer.email, role: 'viewer' });
    expect(added.status).toBe(200);
    const meeting = (await h.post('/meetings', t.key, { workspace_id: t.workspaceId, meeting_url: 'https://meet.google.com/vvv-wwww-xxx' })).body;
    expect((await h.get(`/meetings/${meeting.id}`, viewer.key)).status).toBe(200);
    expect(errorOf(await h.post('/meetings', viewer.key, { workspace_id: t.workspaceId, meeting_url: 'https://meet.google.com/zzz-wwww-xxx' })).code).toBe(
      'permission_denied',
    );
    expect(errorOf(await h.post(`/meetings/${meeting.id}/cancel`, viewer.key, {})).code).toBe('permission_denied');
    expect(errorOf(await h.delete(`/meetings/${meeting.id}`, viewer.key)).code).toBe('permission_denied');
  });

  it('refuses bots and recordings when no transcription minutes are left, but imports transcripts', async () => {
    const tenant = await h.tenant({ tier: 'starter' });
    const now = clock.now();
    // A finished call that used all 120 minutes of the Starter tier this month.
    await database.db.insert(meetings).values({
      id: `mtg_usedup${process.pid}`,
      workspaceId: tenant.workspaceId,
      createdByUserId: tenant.userId,
      title: 'Long call',
      meetingUrl: 'https://meet.google.com/lng-call-abc',
      meetingKey: 'meet:lng-call-abc',
      source: 'bot',
      sourceFileId: null,
      botName: 'Persona Notetaker',
      joinType: 'immediate',
      joinAt: now,
      completedAt: now,
      status: 'done',
      statusChanges: withChange([], { code: 'done' }, now),
      recordingKey: null,
      participantCount: 2,
      analysisStatus: 'completed',
      schemaIds: [],
      recordedSeconds: 119.5 * 60,
      transcribed: 1,
      cancelledAt: null,
      cancelledBy: null,
      cancelReason: null,
      createdAt: now,
      updatedAt: now,
    });
    // Counted as a move to done counts it.
    await countTranscriptionMinutes(database.db, `mtg_usedup${process.pid}`);
    expect((await h.get('/usage', tenant.key)).body.transcription).toMatchObject({ minutes_used: 120, minutes_remaining: 0, percentage_used: 100 });
    const refused = await h.post('/meetings', tenant.key, { workspace_id: tenant.workspaceId, meeting_url: 'https://meet.google.com/new-call-abc' });
    expect(errorOf(refused)).toMatchObject({ type: 'insufficient_credits', code: 'usage_limit_exceeded' });
    const fileId = await uploaded(tenant, 'qbr.json', 'application/json', fixture('qbr.json'));
    expect((await h.post('/meetings', tenant.key, { workspace_id: tenant.workspaceId, transcript_file_id: fileId })).status).toBe(200);
  });

  it('expires the media 30 days after done and keeps transcript and analysis', async () => {
    const meeting = await imported('discovery.srt', 'application/x-subrip');
    await queue.drain();
    expect(await expireMeetingMedia(deps)).not.toContain(meeting.id);
    const start = clock.now();
    clock.advance(31 * 24 * 60 * 60 * 1000);
    try {
      expect(await expireMeetingMedia(deps)).toContain(meeting.id);
      const expired = (await h.get(`/meetings/${meeting.id}`, t.key)).body;
      expect(expired).toMatchObject({ status: 'media_expired', recording_url: null, has_analysis: true, status_detail: { sub_code: 'retention_30_days' } });
      expect((await h.get(`/meetings/${meeting.id}/transcript`, t.key)).status).toBe(200);
      expect((await h.get(`/meetings/${meeting.id}/analysis`, t.key)).status).toBe(200);
      expect(await expireMeetingMedia(deps)).not.toContain(meeting.id);
    } finally {
      clock.set(start);
    }
  });
});
