// A local fake of the Recall.ai bot API (v1) for tests, as the engine's fake OpenAI upstream is: it listens
// on 127.0.0.1, checks `Authorization: Token <key>`, creates bots (POST /api/v1/bot/), serves them
// (GET /api/v1/bot/{id}/) with their status_changes and, once done with a recording, media_shortcuts whose
// download links it serves too (an MP4's bytes and a transcript of participants with timed words), makes
// bots leave (POST …/leave_call/, DELETE …). A test walks a bot through a scenario step by step and gets
// each step's status webhook signed as Recall signs them (Standard Webhooks) to post to the server.
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signStandardWebhook } from '../../src/resources/meetings/recall.js';

export type RecallScenario = 'success' | 'waiting_room_timeout' | 'permission_denied' | 'fatal';

type Step = { code: string; sub_code?: string | null; message?: string | null };

/** Recall's own status sequences for each path (docs.recall.ai, Bot Status Changes and Sub Codes). */
export const SCENARIOS: Record<RecallScenario, Step[]> = {
  success: [
    { code: 'joining_call' },
    { code: 'in_waiting_room' },
    { code: 'in_call_not_recording' },
    { code: 'recording_permission_allowed' },
    { code: 'in_call_recording' },
    { code: 'call_ended', sub_code: 'call_ended_by_host' },
    { code: 'done' },
  ],
  waiting_room_timeout: [
    { code: 'joining_call' },
    { code: 'in_waiting_room' },
    { code: 'call_ended', sub_code: 'timeout_exceeded_waiting_room', message: 'The bot was not admitted within the waiting room timeout.' },
    { code: 'done' },
  ],
  // Recall keeps going after a denial (not terminal for them): call_ended and done follow.
  permission_denied: [
    { code: 'joining_call' },
    { code: 'in_call_not_recording' },
    { code: 'recording_permission_denied', sub_code: 'zoom_local_recording_request_denied_by_host' },
    { code: 'call_ended', sub_code: 'recording_permission_denied_timeout' },
    { code: 'done' },
  ],
  fatal: [{ code: 'joining_call' }, { code: 'fatal', sub_code: 'meeting_not_found', message: 'The meeting link does not lead to a meeting.' }],
};

/** What the bot's participants said (Recall's transcript download: participants with timed words). */
const TRANSCRIPT = [
  {
    participant: { id: 100, name: 'Nadia Flores', is_host: true },
    text: 'Thanks for joining. What made you look at a new analytics tool this quarter?',
    start: 1.2,
    end: 6.8,
  },
  {
    participant: { id: 200, name: 'Owen Grant', is_host: false },
    text: 'Our weekly reporting takes two analysts a full day, and the numbers still arrive late.',
    start: 7.4,
    end: 14.9,
  },
  { participant: { id: 100, name: 'Nadia Flores', is_host: true }, text: 'Is there budget approved for this?', start: 15.5, end: 18.1 },
  { participant: { id: 200, name: 'Owen Grant', is_host: false }, text: 'Yes, we have $40,000 approved, and I sign off on it.', start: 18.6, end: 23.2 },
  { participant: { id: 100, name: 'Nadia Flores', is_host: true }, text: 'Great. I will send the proposal by Friday.', start: 23.9, end: 27.5 },
];

function recallTranscript() {
  return TRANSCRIPT.map((utterance) => {
    const words = utterance.text.split(' ');
    const step = (utterance.end - utterance.start) / words.length;
    return {
      participant: { ...utterance.participant, platform: 'zoom', extra_data: {}, email: null },
      words: words.map((text, index) => ({
        text,
        start_timestamp: { relative: Math.round((utterance.start + index * step) * 100) / 100, absolute: null },
        end_timestamp: { relative: Math.round((utterance.start + (index + 1) * step) * 100) / 100, absolute: null },
      })),
    };
  });
}

export const FAKE_RECORDING = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), randomBytes(4096)]);

interface FakeBot {
  id: string;
  meeting_url: string;
  bot_name: string;
  join_at: string | null;
  scenario: RecallScenario;
  step: number;
  status_changes: { code: string; sub_code: string | null; message: string | null; created_at: string }[];
  removed: boolean;
}

export interface WebhookDelivery {
  headers: Record<string, string>;
  body: string;
}

export interface FakeRecall {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  bots: Map<string, FakeBot>;
  requests: { method: string; path: string; authorization: string | undefined }[];
  /** The scenario of the next bots created (default success). */
  nextScenario(scenario: RecallScenario): void;
  /** Makes the next POST /bot/ answer this status and error body. */
  failNextCreate(status: number, detail: string): void;
  /** Applies the bot's next status change; returns its signed webhook (null when the scenario is over). */
  advance(botId: string, at?: Date): WebhookDelivery | null;
  /** Applies every remaining change; returns their webhooks. */
  finish(botId: string, at?: Date): WebhookDelivery[];
  /** A webhook for a change, signed with `secret` (default the real one), with its own id and timestamp. */
  webhook(botId: string, code: string, options?: { secret?: string; at?: Date; id?: string }): WebhookDelivery;
  close(): Promise<void>;
}

export async function startFakeRecall(): Promise<FakeRecall> {
  const apiKey = `recall-test-${randomBytes(8).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const bots = new Map<string, FakeBot>();
  const requests: FakeRecall['requests'] = [];
  let scenario: RecallScenario = 'success';
  let createFailure: { status: number; detail: string } | null = null;
  let baseUrl = '';

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const view = (bot: FakeBot) => {
    const done = bot.status_changes.some((change) => change.code === 'done');
    const recorded = bot.status_changes.some((change) => change.code === 'in_call_recording');
    return {
      id: bot.id,
      meeting_url: bot.meeting_url,
      bot_name: bot.bot_name,
      join_at: bot.join_at,
      status_changes: bot.status_changes,
      recordings:
        done && recorded
          ? [
              {
                id: `rec-${bot.id}`,
                media_shortcuts: {
                  video_mixed: { data: { download_url: `${baseUrl}/media/${bot.id}/video.mp4` } },
                  transcript: { data: { download_url: `${baseUrl}/media/${bot.id}/transcript.json` } },
                },
              },
            ]
          : [],
    };
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
    const media = /^\/media\/([^/]+)\/(video\.mp4|transcript\.json)$/.exec(url.pathname);
    if (media) {
      // Pre-signed links: no API key, as S3 links are not.
      if (!bots.has(media[1]!)) return json(res, 404, { detail: 'Not found.' });
      if (media[2] === 'video.mp4') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': FAKE_RECORDING.length });
        return res.end(FAKE_RECORDING);
      }
      return json(res, 200, recallTranscript());
    }
    if (req.headers.authorization !== `Token ${apiKey}`) return json(res, 401, { detail: 'Invalid token.' });
    if (req.method === 'POST' && url.pathname === '/api/v1/bot/') {
      if (createFailure) {
        const failure = createFailure;
        createFailure = null;
        return json(res, failure.status, { detail: failure.detail });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (typeof body.meeting_url !== 'string') return json(res, 400, { meeting_url: ['This field is required.'] });
      const bot: FakeBot = {
        id: randomUUID(),
        meeting_url: body.meeting_url,
        bot_name: body.bot_name ?? 'Meeting Notetaker',
        join_at: body.join_at ?? null,
        scenario,
        step: 0,
        status_changes: [{ code: 'ready', sub_code: null, message: null, created_at: new Date().toISOString() }],
        removed: false,
      };
      bots.set(bot.id, bot);
      return json(res, 201, view(bot));
    }
    const one = /^\/api\/v1\/bot\/([^/]+)\/(leave_call\/)?$/.exec(url.pathname);
    const bot = one ? bots.get(one[1]!) : undefined;
    if (!one || !bot) return json(res, 404, { detail: 'Not found.' });
    if (req.method === 'GET' && !one[2]) return json(res, 200, view(bot));
    if ((req.method === 'POST' && one[2]) || (req.method === 'DELETE' && !one[2])) {
      bot.removed = true;
      const now = new Date().toISOString();
      bot.status_changes.push({ code: 'call_ended', sub_code: 'bot_received_leave_call', message: null, created_at: now });
      bot.status_changes.push({ code: 'done', sub_code: null, message: null, created_at: now });
      return json(res, 200, view(bot));
    }
    return json(res, 405, { detail: 'Method not allowed.' });
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch((error) => json(res, 500, { detail: String(error) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const webhook: FakeRecall['webhook'] = (botId, code, options = {}) => {
    const at = options.at ?? new Date();
    const change = bots.get(botId)?.status_changes.findLast((candidate) => candidate.code === code);
    const body = JSON.stringify({
      event: `bot.${code}`,
      data: { data: { code, sub_code: change?.sub_code ?? null, updated_at: at.toISOString() }, bot: { id: botId, metadata: {} } },
    });
    const id = options.id ?? `msg_${randomBytes(12).toString('hex')}`;
    const timestamp = Math.floor(at.getTime() / 1000);
    return {
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signStandardWebhook(options.secret ?? webhookSecret, id, timestamp, body),
      },
      body,
    };
  };

  const advance: FakeRecall['advance'] = (botId, at) => {
    const bot = bots.get(botId);
    if (!bot) throw new Error(`no fake bot ${botId}`);
    const step = SCENARIOS[bot.scenario][bot.step];
    if (!step) return null;
    bot.step += 1;
    bot.status_changes.push({ code: step.code, sub_code: step.sub_code ?? null, message: step.message ?? null, created_at: (at ?? new Date()).toISOString() });
    return webhook(botId, step.code, at ? { at } : {});
  };

  return {
    get baseUrl() {
      return baseUrl;
    },
    apiKey,
    webhookSecret,
    bots,
    requests,
    nextScenario: (next) => {
      scenario = next;
    },
    failNextCreate: (status, detail) => {
      createFailure = { status, detail };
    },
    advance,
    finish: (botId, at) => {
      const deliveries: WebhookDelivery[] = [];
      for (let delivery = advance(botId, at); delivery; delivery = advance(botId, at)) deliveries.push(delivery);
      return deliveries;
    },
    webhook,
    close: async () => {
      server.close();
      server.closeAllConnections();
      await once(server, 'close').catch(() => {});
    },
  };
}
