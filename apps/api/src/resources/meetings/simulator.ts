import type { Clock } from '../../services.js';
import { type MeetingBotProvider, type ProviderBot, ProviderError, WebhookRefused } from './recall.js';
import type { RawCue } from './transcript-parse.js';

/**
 * The development simulator (the default when no bot provider is configured), behind the same
 * MeetingBotProvider interface as the Recall provider: its "bot" walks Recall's status codes on a short,
 * realistic timeline computed from the clock, the sync jobs poll it as they poll Recall (at each next
 * change), and when it is done it offers a sample transcript and no video. Every message it writes
 * starts with "Simulated:" so nobody mistakes it for a real call (`source: simulated_bot`).
 */
export const SIMULATED_PREFIX = 'Simulated:';

/** Each change: Recall's code, after how many seconds since the previous one, and what it says. */
export const SIMULATED_TIMELINE: readonly { code: string; sub_code: string | null; afterSeconds: number; message: string }[] = [
  { code: 'joining_call', sub_code: 'simulated', afterSeconds: 0, message: `${SIMULATED_PREFIX} the bot is joining the call (no real call is joined).` },
  { code: 'in_waiting_room', sub_code: 'simulated', afterSeconds: 5, message: `${SIMULATED_PREFIX} the bot waits to be admitted.` },
  { code: 'in_call_not_recording', sub_code: 'simulated', afterSeconds: 10, message: `${SIMULATED_PREFIX} the host admitted the bot.` },
  { code: 'in_call_recording', sub_code: 'simulated', afterSeconds: 3, message: `${SIMULATED_PREFIX} recording started.` },
  { code: 'call_ended', sub_code: 'call_ended_by_host', afterSeconds: 120, message: `${SIMULATED_PREFIX} the host ended the call.` },
  { code: 'done', sub_code: 'simulated', afterSeconds: 2, message: `${SIMULATED_PREFIX} the sample conversation was recorded.` },
];

const SIMULATED_TRANSCRIPT_URL = 'simulated://transcript';

/** The sample conversation a simulated bot "records": a short discovery call. */
export const SIMULATED_CUES: readonly RawCue[] = (
  [
    ['Dana Reyes', 0, 9.5, 'Thanks for joining, Marco. This is a simulated sample call, so none of this was really said.'],
    ['Marco Lindqvist', 10, 18, 'No problem. We want to see whether your platform can replace our current note-taking process.'],
    ['Dana Reyes', 18.5, 25, 'What is the biggest problem with the process you have today?'],
    ['Marco Lindqvist', 25.5, 41, 'Our reps spend about two hours a week writing up calls, and the notes never reach Salesforce on time.'],
    ['Dana Reyes', 41.5, 48, 'Who else is involved in the decision, and is there a budget set aside?'],
    ['Marco Lindqvist', 48.5, 66, 'Our VP of Sales signs off, and procurement needs a security review. We have budget approved for this quarter.'],
    ['Dana Reyes', 66.5, 75, 'Great. Is there a deadline you are working towards?'],
    ['Marco Lindqvist', 75.5, 90, 'We want the rollout done by the end of March, before the new sales team starts.'],
    ['Dana Reyes', 90.5, 104, 'I will send you our SOC 2 report and a pricing quote by Friday.'],
    ['Marco Lindqvist', 104.5, 117, 'Perfect. My only concern is the Salesforce integration, we had a bad experience with a competitor.'],
    ['Dana Reyes', 117.5, 128, 'Understood. Let me set up a technical call with our integration team next week as the next step.'],
  ] as const
).map(([speaker, start, end, text]) => ({ speaker, start, end, text }));

// A simulated bot keeps no state of its own: its id carries the meeting and the moment it starts joining,
// so every instance (and a restarted one) computes the same status history from the clock.
const BOT_ID = /^simbot_(\d{10,16})_(.+)$/;

export function simulatorProvider(clock: Clock): MeetingBotProvider {
  return {
    name: 'simulator',
    simulated: true,
    async createBot({ meetingId, joinAt }) {
      const start = Math.max(clock.now().getTime(), joinAt?.getTime() ?? 0);
      // Its first change (joining) is at `start`: announced, so the first poll is then, not a poll interval later.
      return { id: `simbot_${start}_${meetingId}`, next_change_at: new Date(start).toISOString() };
    },
    async getBot(id): Promise<ProviderBot> {
      const match = BOT_ID.exec(id);
      if (!match) throw new ProviderError(`${id} is not a simulated bot.`, 404);
      const now = clock.now().getTime();
      let at = Number(match[1]);
      const status_changes: ProviderBot['status_changes'] = [];
      let next_change_at: string | null = null;
      for (const step of SIMULATED_TIMELINE) {
        at += step.afterSeconds * 1000;
        if (at > now) {
          next_change_at = new Date(at).toISOString();
          break;
        }
        status_changes.push({ code: step.code, sub_code: step.sub_code, message: step.message, created_at: new Date(at).toISOString() });
      }
      const done = status_changes.at(-1)?.code === 'done';
      return { id, status_changes, video_url: null, transcript_url: done ? SIMULATED_TRANSCRIPT_URL : null, next_change_at };
    },
    // Nothing runs anywhere: the meeting's own status stops the sync.
    async removeBot() {},
    async downloadTranscript(url) {
      if (url !== SIMULATED_TRANSCRIPT_URL) throw new ProviderError(`${url} is not the simulator's transcript.`, 404);
      return SIMULATED_CUES.map((cue) => ({ ...cue }));
    },
    async downloadVideo() {
      throw new ProviderError('A simulated bot records no video.', 404);
    },
    verifyWebhook() {
      throw new WebhookRefused('The development simulator sends no webhooks.');
    },
  };
}
