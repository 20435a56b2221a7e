// Issue 24 item 6: a client that leaves a stream pays for its input and the output it was sent, no more.
// Against a model slower than the client (the fake upstream, 120 ms between words: a garbage collection in
// the test worker can pause it for tens of ms), the server notices the close before the next word, so what
// is stored and charged is exactly the text the client received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens, creditsForTokens } from '@persona-api/engine';
import type { FakeUpstream } from '@persona-api/engine/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditLedger, creditReservations, modelResponses } from '../../src/db/schema/index.js';
import { fakeUpstreamEngine } from '../support/ai.js';
import { Harness } from '../support/harness.js';

let h: Harness;
let fake: FakeUpstream;
let port = 0;

beforeAll(async () => {
  const started = await fakeUpstreamEngine({ timeoutMs: 10_000 });
  fake = started.fake;
  h = await Harness.create({ engine: started.engine });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  h.app.server.closeAllConnections();
  await h.close();
  await fake.close();
});

const WORDS = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
const WORD_DELAY_MS = 120;

/** Streams `body` to `path`, reads the text deltas, and leaves once `deltas` of them have arrived. */
function readThenLeave(path: string, key: string, body: object, deltas: number): Promise<string> {
  return new Promise((resolve) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    let buffer = '';
    let text = '';
    let seen = 0;
    request.on('response', (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0 && seen < deltas) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          if (!data || data === '[DONE]') continue;
          const event = JSON.parse(data);
          const delta = event.type === 'response.output_text.delta' ? event.delta : event.choices?.[0]?.delta?.content;
          if (typeof delta === 'string' && delta.length > 0) {
            text += delta;
            seen += 1;
          }
        }
        // `deltas` 0: leave on the first bytes (`response.created`, or the first chat chunk).
        if (seen >= deltas) request.destroy();
      });
    });
    request.on('error', () => undefined);
    request.on('close', () => resolve(text));
    request.end(JSON.stringify(body));
  });
}

async function settledRow(accountId: string) {
  for (let i = 0; i < 300; i++) {
    const held = await h.db.select().from(creditReservations).where(eq(creditReservations.accountId, accountId));
    const rows = await h.db.select().from(modelResponses).where(eq(modelResponses.accountId, accountId));
    if (held.length === 0 && rows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const [row] = await h.db.select().from(modelResponses).where(eq(modelResponses.accountId, accountId));
  const charges = await h.db.select().from(creditLedger).where(eq(creditLedger.accountId, accountId));
  return { row: row!, charged: charges.filter((c) => c.kind === 'charge').reduce((sum, c) => sum - c.amount, 0) };
}

describe.each([
  ['/api/v1/responses', (input: string) => ({ model: 'service-1', persona_id: 'persona_saas_cfo', stream: true, input })],
  [
    '/api/v1/chat/completions',
    (input: string) => ({ model: 'service-1', persona_id: 'persona_saas_cfo', stream: true, messages: [{ role: 'user', content: input }] }),
  ],
] as const)('a client that leaves %s on a model slower than itself', (path, bodyOf) => {
  it('pays for its input and the words it received, not for the answer the model would have written', async () => {
    const t = await h.tenant({ credits: 1_000 });
    fake.enqueue({ content: WORDS, tokenDelayMs: WORD_DELAY_MS });
    const received = await readThenLeave(path, t.key, bodyOf('Walk me through your evaluation.'), 3);
    expect(received.split(' ').filter(Boolean).length).toBeGreaterThanOrEqual(3);

    const { row, charged } = await settledRow(t.accountId);
    expect(row.status).toBe('cancelled');
    // The server stopped at the word the client left on: at most one more word was written after it.
    expect(row.outputTokens).toBeGreaterThanOrEqual(countTokens(received));
    expect(row.outputTokens).toBeLessThanOrEqual(countTokens(`${received} word999 `));
    expect(charged).toBe(creditsForTokens(row.inputTokens + row.outputTokens));
    expect(row.creditsUsed).toBe(charged);
    // The whole answer would have cost more: 400 words are at least 400 tokens.
    expect(charged).toBeLessThan(creditsForTokens(row.inputTokens + 400));
  });

  it('pays for at most the first word and the one in flight when it leaves on the first event', async () => {
    const t = await h.tenant({ credits: 1_000 });
    fake.enqueue({ content: WORDS, tokenDelayMs: WORD_DELAY_MS });
    await readThenLeave(path, t.key, bodyOf('Walk me through your evaluation.'), 0);
    const { row, charged } = await settledRow(t.accountId);
    expect(row.status).toBe('cancelled');
    // The model's first word goes out right behind the stream's first event, and at most the word in flight
    // when the close arrived follows it: not the 400-word answer.
    expect(row.outputTokens).toBeLessThanOrEqual(countTokens('word0 word1 '));
    expect(charged).toBe(row.outputTokens === 0 ? 0 : creditsForTokens(row.inputTokens + row.outputTokens));
  });
});
