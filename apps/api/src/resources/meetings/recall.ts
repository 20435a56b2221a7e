import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MeetingStatus } from '@persona-api/types';
import type { StatusMove } from './lifecycle.js';
import type { RawCue } from './transcript-parse.js';

/**
 * The production meeting-bot provider: a Recall.ai-compatible API (docs.recall.ai, API v1). The bot is
 * created with `join_at`; its status changes arrive as signed webhooks (Standard Webhooks, as Recall sends
 * them) and are also polled, and both only trigger a sync that reads the bot and applies its status
 * history (bot-sync.ts). When the bot is `done`, the mixed MP4 and the transcript are downloaded.
 */
export interface ProviderStatusChange {
  code: string;
  sub_code: string | null;
  message: string | null;
  created_at: string;
}

export interface ProviderBot {
  id: string;
  status_changes: ProviderStatusChange[];
  /** Pre-signed links of the first recording, when one was made. */
  video_url: string | null;
  transcript_url: string | null;
  /** When the provider knows its next change (the simulator does): the sync polls then rather than a minute later. */
  next_change_at?: string | null;
}

export interface MeetingBotProvider {
  readonly name: 'recall' | 'simulator';
  /** A development stand-in (no real call is joined): meetings say so (`source: simulated_bot`, "Simulated:" messages). */
  readonly simulated: boolean;
  createBot(
    input: { meetingUrl: string; botName: string; joinAt: Date | null; meetingId: string },
    signal?: AbortSignal,
  ): Promise<{ id: string; next_change_at?: string | null }>;
  getBot(id: string, signal?: AbortSignal): Promise<ProviderBot>;
  /** Makes the bot leave the call (or never join): cancel and delete. A bot already gone is not an error. */
  removeBot(id: string): Promise<void>;
  /** The transcript download, as cues (speaker, times, text). */
  downloadTranscript(url: string, signal?: AbortSignal): Promise<RawCue[]>;
  downloadVideo(url: string, signal?: AbortSignal): Promise<Response>;
  /** Checks a webhook's signature and age; returns the bot id it is about (null for other events). */
  verifyWebhook(headers: Record<string, string | string[] | undefined>, rawBody: string, now: Date): { messageId: string; botId: string | null };
}

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export class WebhookRefused extends Error {
  override name = 'WebhookRefused';
}

/** Standard Webhooks: a message older or newer than this is a replay (or a broken clock) and is refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name] ?? headers[name.replace(/^webhook-/, 'svix-')];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Verifies a Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`, or the
 * legacy `svix-*` names): HMAC-SHA256 over `id.timestamp.body` with the base64 secret after `whsec_`,
 * any `v1,` signature of the space-separated list matching in constant time; then the timestamp within
 * the tolerance. Throws WebhookRefused otherwise.
 */
export function verifyStandardWebhook(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string, now: Date): string {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookRefused('The webhook-id, webhook-timestamp and webhook-signature headers are required.');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookRefused('The webhook signature does not match.');
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(now.getTime() / 1000 - seconds) > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookRefused(`The webhook timestamp is more than ${WEBHOOK_TOLERANCE_SECONDS} seconds away from now (a replay, or a wrong clock).`);
  }
  return id;
}

/** Signs a payload as Recall does (the local fake and tests use it). */
export function signStandardWebhook(secret: string, id: string, timestampSeconds: number, rawBody: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${rawBody}`).digest('base64')}`;
}

// What Recall's codes mean for our state machine (DECISIONS.md, Meetings); null: informational, no move.
const OURS: Record<string, MeetingStatus | null> = {
  ready: null,
  joining_call: 'joining_call',
  in_waiting_room: 'in_waiting_room',
  participant_in_waiting_room: null,
  in_call_not_recording: 'in_call_not_recording',
  recording_permission_allowed: null,
  recording_permission_denied: 'recording_permission_denied',
  in_call_recording: 'in_call_recording',
  call_ended: 'call_ended',
  // `recording_done` and `done` are handled by the sync: the media is fetched first.
  recording_done: null,
  done: null,
  fatal: 'fatal',
  media_expired: null,
  analysis_done: null,
  analysis_failed: null,
};

const DEFAULT_MESSAGES: Partial<Record<MeetingStatus, string>> = {
  joining_call: 'The bot is joining the call.',
  in_waiting_room: 'The bot is in the waiting room, waiting to be admitted.',
  in_call_not_recording: 'The bot is in the call and not recording.',
  in_call_recording: 'The bot is recording.',
  recording_permission_denied: 'The host denied the bot permission to record; it left the call.',
  call_ended: 'The bot left the call.',
  fatal: 'The bot failed.',
};

/** Our move for one of Recall's status changes (null when it does not change our status). */
export function moveFor(change: ProviderStatusChange): StatusMove | null {
  const code = OURS[change.code];
  if (!code) return null;
  const reason = change.sub_code ? ` (${change.sub_code.replace(/_/g, ' ')})` : '';
  return { code, sub_code: change.sub_code, message: change.message ?? `${DEFAULT_MESSAGES[code] ?? change.code}${reason}` };
}

interface RecallTranscriptEntry {
  participant?: { id?: number | string | null; name?: string | null; is_host?: boolean | null } | null;
  words?: { text: string; start_timestamp?: { relative?: number | null } | null; end_timestamp?: { relative?: number | null } | null }[];
}

/** Recall's transcript download (participants with timed words) → one cue per utterance. */
export function cuesOfRecallTranscript(entries: RecallTranscriptEntry[]): RawCue[] {
  return entries
    .filter((entry) => (entry.words?.length ?? 0) > 0)
    .map((entry) => {
      const words = entry.words!;
      return {
        // The first utterance can come from someone talking before the bot joined: no participant.
        speaker: entry.participant?.name?.trim() || 'Unknown speaker',
        start: words[0]!.start_timestamp?.relative ?? 0,
        end: words.at(-1)!.end_timestamp?.relative ?? words[0]!.start_timestamp?.relative ?? 0,
        text: words
          .map((word) => word.text)
          .join(' ')
          .replace(/\s+([.,!?;:])/g, '$1'),
      };
    });
}

interface RecallBot {
  id: string;
  status_changes?: ProviderStatusChange[];
  recordings?: {
    media_shortcuts?: {
      video_mixed?: { data?: { download_url?: string | null } | null } | null;
      transcript?: { data?: { download_url?: string | null } | null } | null;
    };
  }[];
}

export interface RecallOptions {
  apiKey: string;
  region: string;
  /** Overrides https://{region}.recall.ai (a proxy, or the local fake in tests). */
  baseUrl?: string | undefined;
  webhookSecret: string;
  timeoutMs?: number;
}

export function recallProvider(options: RecallOptions): MeetingBotProvider {
  const base = (options.baseUrl ?? `https://${options.region}.recall.ai`).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const call = async (method: string, path: string, body?: unknown, signal?: AbortSignal) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Token ${options.apiKey}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new ProviderError(`Recall.ai answered ${response.status} to ${method} ${path}: ${text.slice(0, 300)}`, response.status);
    return text ? JSON.parse(text) : null;
  };
  return {
    name: 'recall',
    simulated: false,
    async createBot(input, signal) {
      const bot = (await call(
        'POST',
        '/bot/',
        {
          meeting_url: input.meetingUrl,
          bot_name: input.botName,
          ...(input.joinAt ? { join_at: input.joinAt.toISOString() } : {}),
          recording_config: { transcript: { provider: { meeting_captions: {} } }, video_mixed_mp4: {} },
          metadata: { persona_meeting_id: input.meetingId },
        },
        signal,
      )) as RecallBot;
      return { id: bot.id };
    },
    async getBot(id, signal) {
      const bot = (await call('GET', `/bot/${encodeURIComponent(id)}/`, undefined, signal)) as RecallBot;
      const media = bot.recordings?.[0]?.media_shortcuts;
      return {
        id: bot.id,
        status_changes: bot.status_changes ?? [],
        video_url: media?.video_mixed?.data?.download_url ?? null,
        transcript_url: media?.transcript?.data?.download_url ?? null,
      };
    },
    async removeBot(id) {
      // A scheduled bot is deleted; one in the call is asked to leave. Either may already be gone.
      for (const [method, path] of [
        ['POST', `/bot/${encodeURIComponent(id)}/leave_call/`],
        ['DELETE', `/bot/${encodeURIComponent(id)}/`],
      ] as const) {
        try {
          await call(method, path);
          return;
        } catch (error) {
          if (!(error instanceof ProviderError) || (error.status !== null && error.status >= 500)) throw error;
        }
      }
    },
    async downloadTranscript(url, signal) {
      const response = await fetch(url, { signal: signal ?? AbortSignal.timeout(60_000) });
      if (!response.ok) throw new ProviderError(`The transcript download answered ${response.status}.`, response.status);
      return cuesOfRecallTranscript((await response.json()) as RecallTranscriptEntry[]);
    },
    async downloadVideo(url, signal) {
      const response = await fetch(url, { signal: signal ?? AbortSignal.timeout(600_000) });
      if (!response.ok || !response.body) throw new ProviderError(`The recording download answered ${response.status}.`, response.status);
      return response;
    },
    verifyWebhook(headers, rawBody, now) {
      const messageId = verifyStandardWebhook(options.webhookSecret, headers, rawBody, now);
      let event: { data?: { bot_id?: string; bot?: { id?: string } } } | null = null;
      try {
        event = JSON.parse(rawBody);
      } catch {
        throw new WebhookRefused('The webhook body is not JSON.');
      }
      return { messageId, botId: event?.data?.bot?.id ?? event?.data?.bot_id ?? null };
    },
  };
}
