// A client that leaves a stream (issue 17): on the offline engine, which produces its events without
// waiting, the server still notices between chunks; it charges only what was sent, nothing when the
// client left before the first token, and releases the Idempotency-Key so a retry pays once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditLedger, creditReservations, idempotencyKeys, modelResponses } from '../../src/db/schema/index.js';
import { useHarness, useTenant } from '../support/harness.js';

const h = useHarness();
const t = useTenant(h);
let port = 0;

beforeAll(async () => {
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  h.app.server.closeAllConnections();
});

const BODY = JSON.stringify({
  model: 'service-1',
  persona_id: 'persona_saas_cfo',
  stream: true,
  text: { verbosity: 'high' },
  input: 'Walk me through how you would evaluate a new finance platform, step by step, in detail.',
});

/** Sends a streamed /responses and leaves: `when` 'sent' right after the request, 'headers' when the stream opens. */
function leave(when: 'sent' | 'headers', key: string, idempotencyKey: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/responses',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    });
    let bytes = 0;
    request.on('response', (response) => {
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      if (when === 'headers') request.destroy();
    });
    request.on('error', () => undefined);
    request.on('close', () => resolve(bytes));
    request.end(BODY, () => {
      if (when === 'sent') setTimeout(() => request.destroy(), 1);
    });
  });
}

async function settled(accountId: string, idempotencyKey: string) {
  // The server settles after it notices the close: wait until the key is released and nothing is held
  // (by time, 15 s: a count of turns ran out on a loaded CI machine).
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    const held = await h.db.select().from(creditReservations).where(eq(creditReservations.accountId, accountId));
    const keys = await h.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, idempotencyKey));
    if (held.length === 0 && keys.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const charges = await h.db.select().from(creditLedger).where(eq(creditLedger.accountId, accountId));
  const stored = await h.db.select().from(modelResponses).where(eq(modelResponses.accountId, accountId));
  const keys = await h.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, idempotencyKey));
  return { charged: charges.filter((c) => c.kind === 'charge').reduce((sum, c) => sum - c.amount, 0), stored, keyKept: keys.length > 0 };
}

describe('a client that leaves a stream on the offline engine', () => {
  it('pays only for what it was sent, and the retry with the same key runs again', async () => {
    const full = await h.post('/responses', t.key, JSON.parse(BODY));
    const price = full.text.match(/"credits_used":(\d+)/)?.[1];
    expect(Number(price)).toBeGreaterThan(3);

    const leaver = await h.tenant({ credits: 1_000 });
    await leave('headers', leaver.key, 'leave-after-headers');
    const { charged, stored, keyKept } = await settled(leaver.accountId, 'leave-after-headers');
    expect(charged).toBeLessThan(Number(price));
    expect(stored.map((row) => row.status)).toEqual(['cancelled']);
    expect(keyKept).toBe(false);
  });

  it('pays nothing when it leaves before the first token', async () => {
    const leaver = await h.tenant({ credits: 1_000 });
    await leave('sent', leaver.key, 'leave-before-first-token');
    const { charged, stored, keyKept } = await settled(leaver.accountId, 'leave-before-first-token');
    expect(keyKept).toBe(false);
    expect(charged).toBe(0);
    for (const row of stored) expect(row.creditsUsed).toBe(0);
  });
});
