import type { MeetingStatus } from '@persona-api/types';
import { buildTranscript, type ParsedTranscript } from './transcript-parse.js';
import type { StatusMove } from './lifecycle.js';

/**
 * The development simulator (the default when no bot provider is configured): it walks the state
 * machine on a short, realistic timeline through delayed jobs, and every message it writes starts
 * with "Simulated:" so nobody mistakes it for a real call (`source: simulated_bot`).
 */
export const SIMULATED_PREFIX = 'Simulated:';

/** Each step: from which status, to which, after how many seconds. */
export const SIMULATED_TIMELINE: readonly { from: MeetingStatus; move: StatusMove; afterSeconds: number }[] = [
  {
    from: 'pending',
    move: { code: 'joining_call', sub_code: 'simulated', message: `${SIMULATED_PREFIX} the bot is joining the call (no real call is joined).` },
    afterSeconds: 0,
  },
  {
    from: 'joining_call',
    move: { code: 'in_waiting_room', sub_code: 'simulated', message: `${SIMULATED_PREFIX} the bot waits to be admitted.` },
    afterSeconds: 5,
  },
  {
    from: 'in_waiting_room',
    move: { code: 'in_call_not_recording', sub_code: 'simulated', message: `${SIMULATED_PREFIX} the host admitted the bot.` },
    afterSeconds: 10,
  },
  {
    from: 'in_call_not_recording',
    move: { code: 'in_call_recording', sub_code: 'simulated', message: `${SIMULATED_PREFIX} recording started.` },
    afterSeconds: 3,
  },
  {
    from: 'in_call_recording',
    move: { code: 'call_ended', sub_code: 'call_ended_by_host', message: `${SIMULATED_PREFIX} the host ended the call.` },
    afterSeconds: 120,
  },
  {
    from: 'call_ended',
    move: { code: 'recording_done', sub_code: 'simulated', message: `${SIMULATED_PREFIX} the sample conversation was recorded.` },
    afterSeconds: 2,
  },
];

export const SIMULATED_PARTICIPANTS = 2;

/** The sample conversation a simulated bot "records": a short discovery call. */
export function simulatedTranscript(): ParsedTranscript {
  const lines: [string, number, number, string][] = [
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
  ];
  return buildTranscript(
    lines.map(([speaker, start, end, text]) => ({ speaker, start, end, text })),
    'Dana Reyes',
  );
}
