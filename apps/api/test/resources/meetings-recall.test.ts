import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { schemaResultJobs } from '../../src/resources/meeting-schemas/jobs.js';
import { botJobs, syncProviderBot } from '../../src/resources/meetings/bot-sync.js';
import { meetingJobs, type MeetingJobDeps } from '../../src/resources/meetings/jobs.js';
import { type MeetingBotProvider, recallProvider, verifyStandardWebhook, WebhookRefused } from '../../src/resources/meetings/recall.js';
import { BOT_WEBHOOK_PATH } from '../../src/resources/meetings/webhook.js';
import { meetingSettingsFrom } from '../../src/resources/meetings/settings.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createOfflineEngine } from '@persona-api/engine';
import { openTestDatabase } from '../support/database.js';
import { FAKE_RECORDING, startFakeRecall, type FakeRecall, type WebhookDelivery } from '../support/fake-recall.js';
import { errorOf, TestClock, useHarness, useTenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { MemoryStorage } from './files/memory-storage.js';

// The Recall.ai-compatible provider against a local fake of Recall's API: success (recording and
// transcript fetched, the recording served by a signed expiring link), waiting-room timeout, permission
// denied (Recall's later call_ended/done must not undo our terminal status), fatal, bot creation refused,
// cancel and delete removing the bot; forged, stale and replayed webhooks refused; polling as the fallback.

const storage = new MemoryStorage();
// Real time: webhook timestamps are checked against the server clock, and the fake stamps with now.
const clock = new TestClock(Date.now());
let database: DatabaseHandle;
let queue: JobRuntime;
let fake: FakeRecall;
let provider: MeetingBotProvider;
let deps: MeetingJobDeps & { bot: MeetingBotProvider };

afterAll(async () => {
  await queue?.stop({ timeoutMs: 1000 });
  await database?.close();
  await fake?.close();
});

const h = useHarness(async () => {
  fake = await startFakeRecall();
  provider = recallProvider({ apiKey: fake.apiKey, region: 'us-west-2', baseUrl: fake.baseUrl, webhookSecret: fake.webhookSecret });
  database = await openTestDatabase();
  deps = { db: database.db, storage, clock, engine: createOfflineEngine(), jobs: undefined as unknown as MeetingJobDeps['jobs'], bot: provider };
  queue = await openTestJobQueue(database, [
    ...meetingJobs(deps),
    ...botJobs(deps),
    ...schemaResultJobs({ db: database.db, engine: createOfflineEngine(), clock }),
  ]);
  deps.jobs = queue;
  return { database, clock, services: { jobs: queue, storage, meetings: { transcriber: null, bot: provider } } };
});
const t = useTenant(h);

let calls = 0;
async function botMeeting(scenario: Parameters<FakeRecall['nextScenario']>[0], extra: Record<string, unknown> = {}) {
  fake.nextScenario(scenario);
  // A Google Meet code of letters, one per call of this file.
  const letters = String(++calls)
    .padStart(4, '0')
    .replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)]!);
  const created = await h.post('/meetings', t.key, { workspace_id: t.workspaceId, meeting_url: `https://meet.google.com/rcl-${letters}-bot`, ...extra });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ source: 'bot', status: 'pending', status_detail: { sub_code: 'bot_scheduled' } });
  // The bot is created by a job, not in the request.
  await queue.drain();
  const [botId] = [...fake.bots.values()].filter((bot) => bot.meeting_url === created.body.meeting_url).map((bot) => bot.id);
  expect(botId).toBeDefined();
  return { meeting: created.body, botId: botId! };
}

const post = (delivery: WebhookDelivery) => h.app.inject({ method: 'POST', url: BOT_WEBHOOK_PATH, headers: delivery.headers, payload: delivery.body });

/** Delivers the webhooks (each must be accepted) and runs the syncs they trigger. */
async function deliver(deliveries: WebhookDelivery[]) {
  for (const delivery of deliveries) expect((await post(delivery)).statusCode).toBe(200);
  await queue.drain();
}

const meetingOf = async (id: string) => (await h.get(`/meetings/${id}`, t.key)).body;
const codes = (meeting: { status_changes: { code: string }[] }) => meeting.status_changes.map((change) => change.code);

describe('Recall.ai-compatible provider', () => {
  it('walks a recorded call to done: status webhooks, recording and transcript fetched, recording behind a signed link', async () => {
    const { meeting, botId } = await botMeeting('success', { schema_ids: ['msch_bantBuiltin'] });
    const created = fake.requests.find((request) => request.method === 'POST' && request.path === '/api/v1/bot/');
    expect(created?.authorization).toBe(`Token ${fake.apiKey}`);

    await deliver([fake.advance(botId)!, fake.advance(botId)!]);
    expect(await meetingOf(meeting.id)).toMatchObject({ status: 'in_waiting_room', recording_url: null });
    await deliver(fake.finish(botId));

    const done = await meetingOf(meeting.id);
    expect(done).toMatchObject({ status: 'done', has_analysis: true, participant_count: 2 });
    expect(codes(done)).toEqual([
      'pending',
      'joining_call',
      'in_waiting_room',
      'in_call_not_recording',
      'in_call_recording',
      'call_ended',
      'recording_done',
      'done',
    ]);
    expect(done.status_changes.find((change: { code: string }) => change.code === 'call_ended').sub_code).toBe('call_ended_by_host');

    const transcript = (await h.get(`/meetings/${meeting.id}/transcript`, t.key)).body;
    expect(transcript.speakers.map((speaker: { name: string }) => speaker.name)).toEqual(['Nadia Flores', 'Owen Grant']);
    expect(transcript.segments[3]).toMatchObject({ speaker: 'Owen Grant', start: 18.6, text: 'Yes, we have $40,000 approved, and I sign off on it.' });
    const results = (await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body;
    const budget = results.data[0].field_values.find((value: { field_name: string }) => value.field_name === 'budget');
    expect(budget.value).toEqual({ amount: 40000, currency: 'USD' });

    // The recording: a signed /uploads link, valid for at least an hour (to a five-minute mark), that stops working.
    const url = new URL(done.recording_url);
    expect(url.pathname).toMatch(/\/uploads\/upl_[A-Za-z0-9]+\.mp4$/);
    const expires = Number(url.searchParams.get('expires'));
    const validFor = expires - Math.floor(clock.now().getTime() / 1000);
    expect([validFor >= 3600, validFor < 3900, expires % 300]).toEqual([true, true, 0]);
    const download = await h.get(`${url.pathname.replace(/^.*\/api\/v1/, '')}${url.search}`);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('video/mp4');
    // The bytes are the provider's MP4 (checked raw: the harness decodes bodies as text).
    const raw = await h.app.inject({ method: 'GET', url: `${url.pathname.replace(/^.*\/api\/v1/, '/api/v1')}${url.search}` });
    expect(raw.rawPayload.equals(FAKE_RECORDING)).toBe(true);
    const forged = new URLSearchParams(url.search);
    forged.set('signature', '0'.repeat(64));
    expect(errorOf(await h.get(`${url.pathname.replace(/^.*\/api\/v1/, '')}?${forged}`)).code).toBe('invalid_upload_signature');

    // Deleting the meeting deletes the recording's bytes and link.
    expect((await h.delete(`/meetings/${meeting.id}`, t.key)).status).toBe(200);
    expect(await storage.head(`uploads/${url.pathname.split('/').pop()}`)).toBeNull();
    expect((await h.get(`${url.pathname.replace(/^.*\/api\/v1/, '')}${url.search}`)).status).toBe(404);
  });

  it('ends a bot never admitted from the waiting room with the reason, and without a transcript', async () => {
    const { meeting, botId } = await botMeeting('waiting_room_timeout');
    await deliver(fake.finish(botId));
    const ended = await meetingOf(meeting.id);
    expect(ended).toMatchObject({ status: 'done', analysis_status: 'skipped', has_analysis: false, recording_url: null });
    expect(codes(ended)).toEqual(['pending', 'joining_call', 'in_waiting_room', 'call_ended', 'done']);
    expect(ended.status_changes[3]).toMatchObject({
      sub_code: 'timeout_exceeded_waiting_room',
      message: 'The bot was not admitted within the waiting room timeout.',
    });
    expect(ended.status_detail.sub_code).toBe('nothing_recorded');
    expect(errorOf(await h.get(`/meetings/${meeting.id}/transcript`, t.key)).code).toBe('invalid_state');
  });

  it("keeps recording_permission_denied terminal when Recall's call_ended and done follow", async () => {
    const { meeting, botId } = await botMeeting('permission_denied');
    await deliver(fake.finish(botId));
    const denied = await meetingOf(meeting.id);
    expect(denied.status).toBe('recording_permission_denied');
    expect(codes(denied)).toEqual(['pending', 'joining_call', 'in_call_not_recording', 'recording_permission_denied']);
    expect(denied.status_detail.sub_code).toBe('zoom_local_recording_request_denied_by_host');
    // A later poll reads the same history and changes nothing.
    expect(await syncProviderBot(deps, { id: meeting.id, poll: false })).toBe('recording_permission_denied');
    expect(codes(await meetingOf(meeting.id))).toHaveLength(4);
  });

  it('fails with the provider sub code, and when the provider refuses the bot', async () => {
    const { meeting, botId } = await botMeeting('fatal');
    await deliver(fake.finish(botId));
    expect((await meetingOf(meeting.id)).status_detail).toMatchObject({
      code: 'fatal',
      sub_code: 'meeting_not_found',
      message: 'The meeting link does not lead to a meeting.',
    });

    fake.failNextCreate(400, 'meeting_url: This Zoom meeting requires a passcode.');
    const refused = (await h.post('/meetings', t.key, { workspace_id: t.workspaceId, meeting_url: 'https://zoom.us/j/987654321' })).body;
    await queue.drain();
    const failed = await meetingOf(refused.id);
    expect(failed.status_detail).toMatchObject({ code: 'fatal', sub_code: 'bot_create_failed' });
    expect(failed.status_detail.message).toContain('requires a passcode');
  });

  it('polls when no webhook arrives', async () => {
    const { meeting, botId } = await botMeeting('success');
    fake.finish(botId);
    // No webhook delivered: the poll (normally a minute later) reads the whole history.
    expect(await syncProviderBot(deps, { id: meeting.id, poll: false })).toBe('done');
    expect(codes(await meetingOf(meeting.id))).toContain('in_call_recording');
  });

  it('refuses forged, unsigned, stale and replayed webhooks', async () => {
    const { meeting, botId } = await botMeeting('success');
    fake.advance(botId);
    const forged = fake.webhook(botId, 'joining_call', { secret: `whsec_${Buffer.from('not the real secret at all').toString('base64')}` });
    expect((await post(forged)).statusCode).toBe(401);
    const genuine = fake.webhook(botId, 'joining_call');
    const tampered = { ...genuine, body: genuine.body.replace('joining_call', 'done') };
    expect((await post(tampered)).statusCode).toBe(401);
    const { 'webhook-signature': _signature, ...unsigned } = genuine.headers;
    expect((await post({ ...genuine, headers: unsigned })).statusCode).toBe(401);
    const stale = fake.webhook(botId, 'joining_call', { at: new Date(Date.now() - 10 * 60 * 1000) });
    expect((await post(stale)).statusCode).toBe(401);
    await queue.drain();
    expect((await meetingOf(meeting.id)).status).toBe('pending');

    expect((await post(genuine)).statusCode).toBe(200);
    const replay = await post(genuine);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    await queue.drain();
    expect((await meetingOf(meeting.id)).status).toBe('joining_call');
    expect(() => verifyStandardWebhook(fake.webhookSecret, genuine.headers, genuine.body, new Date(Date.now() + 6 * 60 * 1000))).toThrow(WebhookRefused);
  });

  it('removes the bot on cancel and on delete', async () => {
    const first = await botMeeting('success');
    fake.advance(first.botId);
    expect((await h.post(`/meetings/${first.meeting.id}/cancel`, t.key, { reason: 'Rescheduled' })).status).toBe(200);
    expect(fake.bots.get(first.botId)!.removed).toBe(true);
    // The bot's later call_ended/done change nothing.
    expect(await syncProviderBot(deps, { id: first.meeting.id, poll: false })).toBe('cancelled');

    const second = await botMeeting('success');
    await deliver([fake.advance(second.botId)!, fake.advance(second.botId)!, fake.advance(second.botId)!]);
    expect((await h.delete(`/meetings/${second.meeting.id}`, t.key)).status).toBe(200);
    expect(fake.bots.get(second.botId)!.removed).toBe(true);
  });
});

describe('configuration', () => {
  it('reads the provider and speech-to-text settings from config.ts, and refuses a key without its webhook secret', () => {
    const secret = `whsec_${Buffer.from('a webhook secret of thirty-two bytes!').toString('base64')}`;
    const settings = meetingSettingsFrom(
      loadConfig({ RECALL_API_KEY: 'rk_test', RECALL_WEBHOOK_SECRET: secret, RECALL_REGION: 'eu-central-1', TRANSCRIPTION_BASE_URL: 'http://127.0.0.1:9/v1' }),
    );
    expect(settings.bot?.name).toBe('recall');
    expect(settings.transcriber).not.toBeNull();
    expect(meetingSettingsFrom(loadConfig({}))).toEqual({ transcriber: null, bot: null });
    expect(() => loadConfig({ RECALL_API_KEY: 'rk_test' })).toThrow(ConfigError);
    expect(() => loadConfig({ RECALL_API_KEY: 'rk_test', RECALL_WEBHOOK_SECRET: secret, RECALL_REGION: 'mars-1' })).toThrow(/RECALL_REGION/);
  });
});
