import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export const DONE_EVENT = 'data: [DONE]';

/**
 * Splits a complete SSE transcript (the spec's stream example) into its events, each without the
 * blank line that ends it, and makes sure the last one is `data: [DONE]`.
 */
export function splitSseTranscript(transcript: string): string[] {
  const events = transcript
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((event) => event.replace(/^\n+|\n+$/g, ''))
    .filter((event) => event.length > 0);
  if (events.at(-1) !== DONE_EVENT) events.push(DONE_EVENT);
  return events;
}

/** Writes the events one by one, `delayMs` apart; stops early when the client goes away. */
export async function replaySse(response: ServerResponse, events: readonly string[], delayMs: number): Promise<void> {
  response.socket?.setNoDelay(true);
  response.flushHeaders();
  for (const [index, event] of events.entries()) {
    if (response.destroyed) return;
    if (index > 0 && delayMs > 0) await sleep(delayMs);
    response.write(`${event}\n\n`);
  }
  response.end();
}
