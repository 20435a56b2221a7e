import { creditsForTokens } from '@persona-api/engine';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { modelResponses } from '../../src/db/schema/index.js';
import { FILTER_WINDOW } from '../../src/resources/chat/stored.js';
import { balanceOf, chargesOf, events } from '../support/ai.js';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

// Stored chat completions (DECISIONS.md, Legacy chat completions): every completed one read back as
// returned plus its metadata, listed oldest first by an index range, filtered by model and metadata within
// a bounded look, its metadata replaced, deleted, and its request messages paged. Every answer is
// validated against the contract by the harness.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });
const ask = (content: unknown, extra: Record<string, unknown> = {}) => ({
  model: 'service-1',
  persona_id: 'persona_restaurant_owner',
  messages: [{ role: 'user', content }],
  ...extra,
});
const complete = async (body: Record<string, unknown>, key = t.key) => {
  // The test clock stands still: each completion a millisecond after the last, as real ones are.
  h.clock.advance(1);
  const created = await h.post('/chat/completions', key, body);
  expect(created.status).toBe(200);
  return created.body;
};
const list = async (query = '', key = t.key) => {
  const listed = await h.get(`/chat/completions${query}`, key);
  expect(listed.status).toBe(200);
  return listed.body;
};
const ids = (page: { data: { id: string }[] }) => page.data.map((completion) => completion.id);

describe('a stored chat completion', () => {
  it('reads back as it was returned, with the request’s metadata, streamed or not', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const plain = await complete(ask('Would you pay 2% per cover?', { metadata: { campaign: 'spring' }, store: true }), tenant.key);
    const got = await h.get(`/chat/completions/${plain.id}`, tenant.key);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...plain, metadata: { campaign: 'spring' } });

    // `store` has no effect: a completion without it is stored too, its metadata {}.
    h.clock.advance(1);
    const streamed = await h.post('/chat/completions', tenant.key, ask('And at 1%?', { stream: true, stream_options: { include_usage: true } }));
    const chunks = events(streamed.text)
      .map((event) => event.data as any)
      .filter((data) => data.object === 'chat.completion.chunk');
    const id = chunks[0].id;
    const text = chunks.map((chunk: any) => chunk.choices[0]?.delta?.content ?? '').join('');
    const read = (await h.get(`/chat/completions/${id}`, tenant.key)).body;
    expect(read.choices[0].message.content).toBe(text);
    expect(read.usage).toEqual(chunks.at(-1).usage);
    expect(read.metadata).toEqual({});

    expect(ids(await list('', tenant.key))).toEqual([plain.id, id]);
  });

  it('is not stored when it failed, and a failed or left one is not found', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const [row] = await h.db
      .insert(modelResponses)
      .values({
        id: 'chatcmpl_failedOne123',
        object: 'chat.completion',
        accountId: tenant.accountId,
        status: 'failed',
        stream: true,
        engine: 'offline',
        request: ask('x'),
        body: { id: 'chatcmpl_failedOne123', object: 'chat.completion', created: 1, error: { message: 'x' } },
        inputTokens: 1,
        outputTokens: 0,
        creditsUsed: 0,
        createdAt: new Date(),
      })
      .returning();
    expect((await h.get(`/chat/completions/${row!.id}`, tenant.key)).status).toBe(404);
    expect((await h.get(`/chat/completions/${row!.id}/messages`, tenant.key)).status).toBe(404);
    expect(ids(await list('', tenant.key))).toEqual([]);
  });

  it('has its metadata replaced whole, cleared by null, and is deleted without touching the ledger', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const completion = await complete(ask('Hello.', { metadata: { campaign: 'spring', owner: 'ana' } }), tenant.key);
    const balance = await balanceOf(h, tenant.accountId);
    const updated = await h.post(`/chat/completions/${completion.id}`, tenant.key, { metadata: { reviewed: 'yes' } });
    expect(updated.body).toEqual({ ...completion, metadata: { reviewed: 'yes' } });
    expect((await h.get(`/chat/completions/${completion.id}`, tenant.key)).body.metadata).toEqual({ reviewed: 'yes' });
    expect(ids(await list('?metadata[reviewed]=yes', tenant.key))).toEqual([completion.id]);
    expect(ids(await list('?metadata[campaign]=spring', tenant.key))).toEqual([]);
    expect((await h.post(`/chat/completions/${completion.id}`, tenant.key, { metadata: null })).body.metadata).toEqual({});
    const unknownField = await h.post(`/chat/completions/${completion.id}`, tenant.key, { metadata: {}, model: 'x' });
    expect(unknownField.status).toBe(400);

    const deleted = await h.delete(`/chat/completions/${completion.id}`, tenant.key);
    expect(deleted.body).toEqual({ id: completion.id, object: 'chat.completion.deleted', deleted: true });
    expect((await h.get(`/chat/completions/${completion.id}`, tenant.key)).status).toBe(404);
    expect((await h.delete(`/chat/completions/${completion.id}`, tenant.key)).status).toBe(404);
    expect((await h.post(`/chat/completions/${completion.id}`, tenant.key, { metadata: {} })).status).toBe(404);
    expect(await balanceOf(h, tenant.accountId)).toBe(balance);
    expect(creditsForTokens(completion.usage.total_tokens)).toBe(completion.usage.credits_used);
  });

  it('keeps nothing of a store: false completion, streamed or not; its charge stays', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const unkept = await complete(ask('Would you pay 2% per cover?', { store: false, metadata: { campaign: 'spring' } }), tenant.key);
    h.clock.advance(1);
    const streamed = await h.post('/chat/completions', tenant.key, ask('And at 1%?', { store: false, stream: true }));
    expect(streamed.status).toBe(200);
    const kept = await complete(ask('And at 0.5%?', { store: true }), tenant.key);
    expect(ids(await list('', tenant.key))).toEqual([kept.id]);
    expect((await h.get(`/chat/completions/${unkept.id}`, tenant.key)).status).toBe(404);
    expect((await h.get(`/chat/completions/${unkept.id}/messages`, tenant.key)).status).toBe(404);
    expect(await h.db.$count(modelResponses, eq(modelResponses.accountId, tenant.accountId))).toBe(1);
    expect((await chargesOf(h, tenant.accountId)).length).toBe(3);
  });

  it('refuses an id that is not a chat completion’s', async () => {
    const response = await h.get('/chat/completions/resp_abcdefghijk', t.key);
    expect([response.status, errorOf(response).param]).toEqual([400, 'id']);
  });
});

describe('the list of stored chat completions', () => {
  it('is oldest first, pages by after or cursor in both orders, and names its ends', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const made: string[] = [];
    for (let index = 0; index < 5; index += 1) made.push((await complete(ask(`Question ${index}?`), tenant.key)).id);

    const first = await list('?limit=2', tenant.key);
    expect(ids(first)).toEqual(made.slice(0, 2));
    expect([first.first_id, first.last_id, first.has_more, first.next_cursor]).toEqual([made[0], made[1], true, made[1]]);
    const second = await list(`?limit=2&after=${first.last_id}`, tenant.key);
    expect(ids(second)).toEqual(made.slice(2, 4));
    const third = await list(`?limit=2&cursor=${second.next_cursor}`, tenant.key);
    expect([ids(third), third.has_more, third.next_cursor]).toEqual([made.slice(4), false, null]);

    const latest = await list('?order=desc&limit=3', tenant.key);
    expect(ids(latest)).toEqual(made.slice(2).reverse());
    expect(ids(await list(`?order=desc&after=${latest.last_id}`, tenant.key))).toEqual(made.slice(0, 2).reverse());
    expect(ids(await list(`?after=${made[4]}`, tenant.key))).toEqual([]);
  });

  it('refuses a cursor that is not one of its completions, and after and cursor that disagree', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const mine = await complete(ask('Hi.'), tenant.key);
    const other = await complete(ask('Hi.'));
    for (const query of [`?after=${other.id}`, '?after=chatcmpl_neverMade123', '?cursor=garbage']) {
      const listed = await h.get(`/chat/completions${query}`, tenant.key);
      expect([listed.status, errorOf(listed).code]).toEqual([400, 'invalid_cursor']);
    }
    const conflict = await h.get(`/chat/completions?after=${mine.id}&cursor=${other.id}`, tenant.key);
    expect([conflict.status, errorOf(conflict).code, errorOf(conflict).param]).toEqual([400, 'parameter_conflict', 'after']);
    const plain = await h.get('/chat/completions?metadata=campaign', tenant.key);
    expect([plain.status, errorOf(plain).param]).toEqual([400, 'metadata']);
  });

  it('filters by model and by every metadata pair', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const spring = await complete(ask('A?', { metadata: { campaign: 'spring', region: 'eu' } }), tenant.key);
    const summer = await complete(ask('B?', { metadata: { campaign: 'summer', region: 'eu' } }), tenant.key);
    const none = await complete(ask('C?'), tenant.key);
    expect(ids(await list('?metadata[region]=eu', tenant.key))).toEqual([spring.id, summer.id]);
    expect(ids(await list('?metadata[region]=eu&metadata[campaign]=summer', tenant.key))).toEqual([summer.id]);
    expect(ids(await list(`?metadata%5Bcampaign%5D=spring`, tenant.key))).toEqual([spring.id]);
    expect(ids(await list('?model=service-1', tenant.key))).toEqual([spring.id, summer.id, none.id]);
    expect(ids(await list('?model=gpt-4o', tenant.key))).toEqual([]);
    const paged = await list('?metadata[region]=eu&limit=1', tenant.key);
    expect([ids(paged), paged.has_more, paged.next_cursor]).toEqual([[spring.id], true, spring.id]);
    expect(ids(await list(`?metadata[region]=eu&after=${paged.next_cursor}`, tenant.key))).toEqual([summer.id]);
  });

  it('looks at no more than the window past the cursor when filtered, and says where it stopped', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const template = await complete(ask('Template?'), tenant.key);
    const [stored] = await h.db.select().from(modelResponses).where(eq(modelResponses.id, template.id));
    // The window's worth of completions without the pair, then one with it.
    const base = stored!.createdAt.getTime();
    const rows = Array.from({ length: FILTER_WINDOW + 1 }, (_, index) => {
      const id = `chatcmpl_bulk${String(index).padStart(6, '0')}`;
      return {
        ...stored!,
        id,
        body: { ...(stored!.body as Record<string, unknown>), id },
        metadata: index === FILTER_WINDOW ? { needle: 'yes' } : { needle: 'no' },
        createdAt: new Date(base + 1000 + index),
      };
    });
    await h.db.insert(modelResponses).values(rows);

    const first = await list('?metadata[needle]=yes', tenant.key);
    const lastOfWindow = rows[FILTER_WINDOW - 2]!.id; // the template is the window's first
    expect([ids(first), first.has_more, first.next_cursor]).toEqual([[], true, lastOfWindow]);
    const next = await list(`?metadata[needle]=yes&cursor=${first.next_cursor}`, tenant.key);
    expect([ids(next), next.has_more]).toEqual([[rows[FILTER_WINDOW]!.id], false]);
    // Unfiltered pages are the page and one more, whatever the window.
    expect((await list('?limit=3', tenant.key)).has_more).toBe(true);
    expect(await h.db.$count(modelResponses, eq(modelResponses.accountId, tenant.accountId))).toBe(FILTER_WINDOW + 2);
  });
});

describe('the messages of a stored chat completion', () => {
  it('are the request’s messages in OpenAI’s stored shape, paged in both orders', async () => {
    const tenant = await h.tenant({ credits: 10_000 });
    const completion = await complete(
      {
        model: 'service-1',
        persona_id: 'persona_restaurant_owner',
        messages: [
          { role: 'system', content: 'Keep it short.' },
          {
            role: 'user',
            name: 'ana',
            content: [
              { type: 'text', text: 'What would 240 seats ' },
              { type: 'text', text: 'cost?' },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_quote1', type: 'function', function: { name: 'quote', arguments: '{"seats":240}' } }],
          },
          { role: 'tool', tool_call_id: 'call_quote1', content: '{"total_usd":46080}' },
        ],
        tools: [{ type: 'function', function: { name: 'quote', parameters: { type: 'object', properties: { seats: { type: 'integer' } } } } }],
      },
      tenant.key,
    );
    const listed = await h.get(`/chat/completions/${completion.id}/messages`, tenant.key);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      object: 'list',
      data: [
        { id: `${completion.id}-0`, role: 'system', content: 'Keep it short.', name: null, content_parts: null },
        {
          id: `${completion.id}-1`,
          role: 'user',
          content: 'What would 240 seats cost?',
          name: 'ana',
          content_parts: [
            { type: 'text', text: 'What would 240 seats ' },
            { type: 'text', text: 'cost?' },
          ],
        },
        {
          id: `${completion.id}-2`,
          role: 'assistant',
          content: null,
          name: null,
          content_parts: null,
          tool_calls: [{ id: 'call_quote1', type: 'function', function: { name: 'quote', arguments: '{"seats":240}' } }],
        },
        { id: `${completion.id}-3`, role: 'tool', content: '{"total_usd":46080}', name: null, content_parts: null, tool_call_id: 'call_quote1' },
      ],
      first_id: `${completion.id}-0`,
      last_id: `${completion.id}-3`,
      has_more: false,
      next_cursor: null,
    });

    const page = (await h.get(`/chat/completions/${completion.id}/messages?limit=3&order=desc`, tenant.key)).body;
    expect([page.data.map((message: any) => message.role), page.next_cursor]).toEqual([['tool', 'assistant', 'user'], `${completion.id}-1`]);
    const rest = (await h.get(`/chat/completions/${completion.id}/messages?order=desc&after=${page.next_cursor}`, tenant.key)).body;
    expect([rest.data.map((message: any) => message.role), rest.has_more]).toEqual([['system'], false]);
    const asc = (await h.get(`/chat/completions/${completion.id}/messages?limit=1&cursor=${completion.id}-1`, tenant.key)).body;
    expect(asc.data.map((message: any) => message.id)).toEqual([`${completion.id}-2`]);

    for (const after of [`${completion.id}-4`, `${completion.id}-01`, `${completion.id}-x`, 'chatcmpl_other-0']) {
      const bad = await h.get(`/chat/completions/${completion.id}/messages?after=${after}`, tenant.key);
      expect([bad.status, errorOf(bad).code, errorOf(bad).param]).toEqual([400, 'invalid_cursor', 'after']);
    }
  });
});
