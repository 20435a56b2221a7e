import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversationItems } from '../../src/db/schema/index.js';
import { errorOf, useHarness, useTenant } from '../support/harness.js';

// OpenAI's Conversations API (DECISIONS.md, Conversations): a conversation, its metadata, and its items
// added, listed in order, paged by `after` or `cursor`, read and deleted one by one. Every answer is
// validated against the contract by the harness.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });
const user = (text: string) => ({ role: 'user', content: text });
const texts = (page: any): string[] =>
  page.data.map((item: any) => (item.type === 'message' ? item.content.map((part: any) => part.text).join('') : item.type));
const create = async (body: Record<string, unknown> = {}) => {
  const created = await h.post('/conversations', t.key, body);
  expect(created.status).toBe(200);
  return created.body;
};
const add = async (id: string, items: unknown[]) => {
  const added = await h.post(`/conversations/${id}/items`, t.key, { items });
  expect(added.status).toBe(200);
  return added.body;
};
const page = async (id: string, query = '') => {
  const listed = await h.get(`/conversations/${id}/items${query}`, t.key);
  expect(listed.status).toBe(200);
  return listed.body;
};

describe('a conversation', () => {
  it('is created with its first items and metadata, read, updated and deleted with its items', async () => {
    const conversation = await create({ metadata: { customer: 'acme' }, items: [user('Hello.'), { role: 'assistant', content: 'Hi there.' }] });
    expect(conversation).toEqual({
      id: expect.stringMatching(/^conv_/),
      object: 'conversation',
      created_at: expect.any(Number),
      metadata: { customer: 'acme' },
    });
    expect((await h.get(`/conversations/${conversation.id}`, t.key)).body).toEqual(conversation);
    expect(texts(await page(conversation.id, '?order=asc'))).toEqual(['Hello.', 'Hi there.']);

    const updated = await h.post(`/conversations/${conversation.id}`, t.key, { metadata: { customer: 'acme', stage: 'pilot' } });
    expect(updated.body).toEqual({ ...conversation, metadata: { customer: 'acme', stage: 'pilot' } });
    expect((await h.post(`/conversations/${conversation.id}`, t.key, { metadata: null })).body.metadata).toEqual({});
    expect((await create()).metadata).toEqual({});

    const deleted = await h.delete(`/conversations/${conversation.id}`, t.key);
    expect(deleted.body).toEqual({ id: conversation.id, object: 'conversation.deleted', deleted: true });
    expect((await h.get(`/conversations/${conversation.id}`, t.key)).status).toBe(404);
    expect((await h.get(`/conversations/${conversation.id}/items`, t.key)).status).toBe(404);
    expect(await h.db.select().from(conversationItems).where(eq(conversationItems.conversationId, conversation.id))).toEqual([]);
    expect((await h.delete(`/conversations/${conversation.id}`, t.key)).status).toBe(404);
  });

  it('refuses more than 20 items at once, a reference to no output item, and an id that is not a conversation’s', async () => {
    const many = await h.post('/conversations', t.key, { items: Array.from({ length: 21 }, (_, i) => user(`m${i}`)) });
    expect([many.status, errorOf(many).param]).toEqual([400, 'items']);
    const { id } = await create({ items: [] });
    const none = await h.post(`/conversations/${id}/items`, t.key, { items: [] });
    expect([none.status, errorOf(none).param]).toEqual([400, 'items']);
    const unknown = await h.post(`/conversations/${id}/items`, t.key, { items: [user('a'), { type: 'item_reference', id: 'msg_nothere' }] });
    expect([unknown.status, errorOf(unknown)]).toEqual([400, { type: 'invalid_request_error', code: 'invalid_parameter', param: 'items.1.id' }]);
    expect((await page(id)).data).toEqual([]);
    const wrong = await h.get('/conversations/resp_abc', t.key);
    expect([wrong.status, errorOf(wrong).param]).toEqual([400, 'id']);
  });
});

describe('its items', () => {
  it('are stored in the listed form with ids of their kind, references as the output item they name', async () => {
    const answered = await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Would you pay $18 per seat?' });
    const { id } = await create();
    const added = await add(id, [
      { role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
      { type: 'item_reference', id: answered.body.output[0].id },
      { type: 'function_call', call_id: 'lookup-1', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
      { type: 'function_call_output', call_id: 'lookup-1', output: 'sunny' },
    ]);
    expect(added.has_more).toBe(false);
    expect(added.data.map((item: any) => item.id.split('_')[0])).toEqual(['msg', 'msg', 'fc', 'fco']);
    expect(added.data[1]).toEqual({ ...answered.body.output[0], id: added.data[1].id });
    expect(added.data[1].id).not.toBe(answered.body.output[0].id);
    expect([added.first_id, added.last_id]).toEqual([added.data[0].id, added.data[3].id]);
    expect(added.data[2]).toEqual({
      id: added.data[2].id,
      type: 'function_call',
      call_id: 'lookup-1',
      name: 'get_weather',
      arguments: '{"city":"Lisbon"}',
      status: 'completed',
    });
    expect(added.data[3]).toEqual({ id: added.data[3].id, type: 'function_call_output', call_id: 'lookup-1', output: 'sunny', status: 'completed' });
    for (const item of added.data) expect((await h.get(`/conversations/${id}/items/${item.id}`, t.key)).body).toEqual(item);
  });

  it('are listed newest first by default and paged by `after` or `cursor`, in either order', async () => {
    const { id } = await create({ items: [user('m0')] });
    for (let batch = 0; batch < 3; batch++)
      await add(
        id,
        Array.from({ length: 15 }, (_, i) => user(`m${1 + batch * 15 + i}`)),
      );
    const all = Array.from({ length: 46 }, (_, i) => `m${i}`);
    expect(texts(await page(id, '?limit=100'))).toEqual([...all].reverse());
    for (const [param, order] of [
      ['after', 'asc'],
      ['cursor', 'desc'],
    ] as const) {
      const seen: string[] = [];
      let listed = await page(id, `?limit=20&order=${order}`);
      for (;;) {
        seen.push(...texts(listed));
        expect(listed.next_cursor).toBe(listed.has_more ? listed.last_id : null);
        if (!listed.has_more) break;
        listed = await page(id, `?limit=20&order=${order}&${param}=${listed.last_id}`);
      }
      expect(seen).toEqual(order === 'asc' ? all : [...all].reverse());
    }
    const foreign = await h.get(`/conversations/${id}/items?after=msg_notinthisone`, t.key);
    expect([foreign.status, errorOf(foreign)]).toEqual([400, { type: 'invalid_request_error', code: 'invalid_cursor', param: 'after' }]);
  });

  it('are deleted one by one; the delete answers the conversation', async () => {
    const conversation = await create({ items: [user('keep'), user('drop'), user('keep too')] });
    const [, drop] = (await page(conversation.id, '?order=asc')).data;
    const deleted = await h.delete(`/conversations/${conversation.id}/items/${drop.id}`, t.key);
    expect(deleted.body).toEqual(conversation);
    expect(texts(await page(conversation.id, '?order=asc'))).toEqual(['keep', 'keep too']);
    const again = await h.delete(`/conversations/${conversation.id}/items/${drop.id}`, t.key);
    expect([again.status, errorOf(again).param]).toEqual([404, 'item_id']);
    expect((await h.get(`/conversations/${conversation.id}/items/${drop.id}`, t.key)).status).toBe(404);
  });

  it('keep one order when added concurrently: each batch stays together', async () => {
    const { id } = await create();
    await Promise.all(Array.from({ length: 8 }, (_, batch) => add(id, [user(`b${batch} first`), user(`b${batch} second`)])));
    const listed = texts(await page(id, '?order=asc'));
    expect(listed).toHaveLength(16);
    for (let i = 0; i < 16; i += 2) expect(listed[i + 1]).toBe(listed[i]!.replace('first', 'second'));
    expect(new Set(listed).size).toBe(16);
  });
});

describe('POST /responses with conversation', () => {
  const ask = (conversation: unknown, input: unknown, extra: Record<string, unknown> = {}, key = t.key) =>
    h.post('/responses', key, { model: 'service-1', persona_id: 'persona_saas_cfo', conversation, input, ...extra });
  const answerOf = (body: any): string => body.output[0].content[0].text;

  it('reads the conversation before input, then appends the turn; the response echoes it and lists what it was given', async () => {
    const { id } = await create({ items: [user('My renewal date is March 3 and we have 120 seats.')] });
    const first = await ask(id, 'What is my renewal date?');
    expect(first.status).toBe(200);
    expect(first.body.conversation).toEqual({ id });
    expect(answerOf(first.body)).toBe('You said: “My renewal date is March 3 and we have 120 seats.”');
    const afterFirst = await page(id, '?order=asc');
    expect(texts(afterFirst)).toEqual(['My renewal date is March 3 and we have 120 seats.', 'What is my renewal date?', answerOf(first.body)]);
    // The output items keep their ids in the conversation.
    expect(afterFirst.data[2].id).toBe(first.body.output[0].id);

    // The object form, streamed: the second turn sees the first, and is appended too.
    const streamed = await ask({ id }, 'What did I ask you?', { stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('You asked: “What is my renewal date?”');
    expect((await page(id)).data).toHaveLength(5);

    // input_items: the conversation items it read, then its own input; not what came after it.
    const given = await h.get(`/responses/${first.body.id}/input_items?order=asc`, t.key);
    expect(texts(given.body)).toEqual(['My renewal date is March 3 and we have 120 seats.', 'What is my renewal date?']);
    expect(given.body.data[0].id).toBe(afterFirst.data[0].id);
  });

  it('is a 404 for an unknown or another account’s conversation, and a 400 with previous_response_id; nothing is appended', async () => {
    const { id } = await create({ items: [user('Secret plan.')] });
    const unknown = await ask('conv_doesnotexist', 'Hi');
    expect([unknown.status, errorOf(unknown)]).toEqual([404, { type: 'not_found', code: 'resource_not_found', param: 'conversation' }]);
    const other = await h.tenant({ credits: 1_000 });
    const theirs = await ask(id, 'What is the plan?', {}, other.key);
    expect([theirs.status, errorOf(theirs).param]).toEqual([404, 'conversation']);
    const earlier = await ask(id, 'Hello');
    const both = await ask(id, 'Hi', { previous_response_id: earlier.body.id });
    expect([both.status, errorOf(both)]).toEqual([400, { type: 'invalid_request_error', code: 'parameter_conflict', param: 'conversation' }]);
    expect((await page(id)).data).toHaveLength(3);
  });

  it('honours truncation: disabled refuses a conversation that does not fit, auto leaves out its oldest items', async () => {
    const big = (n: number) => user(`${n} `.repeat(20_000));
    const { id } = await create({ items: [big(1), big(2), big(3)] });
    const refused = await ask(id, 'Summarise.');
    expect([refused.status, errorOf(refused)]).toEqual([400, { type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input' }]);
    expect((await page(id)).data).toHaveLength(3);
    const cut = await ask(id, 'Summarise.', { truncation: 'auto' });
    expect(cut.status).toBe(200);
    const given = (await h.get(`/responses/${cut.body.id}/input_items?order=asc`, t.key)).body;
    expect(given.data.map((item: any) => item.content[0].text.slice(0, 2))).toEqual(['2 ', '3 ', 'Su']);
    expect((await page(id)).data).toHaveLength(5);
  });

  it('holds exactly the turns that were charged when concurrent calls run out of credits', async () => {
    const probe = await ask((await create()).id, 'Would you pay $18 per seat?');
    const price = probe.body.usage.credits_used as number;
    const tight = await h.tenant({ credits: price * 3 });
    const conversation = (await h.post('/conversations', tight.key, {})).body.id as string;
    const calls = await Promise.all(Array.from({ length: 8 }, () => ask(conversation, 'Would you pay $18 per seat?', {}, tight.key)));
    const answered = calls.filter((call) => call.status === 200);
    expect(answered.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.status === 200 || call.status === 402)).toBe(true);
    // Every answered turn is in the conversation, and nothing else: its question and its answer.
    const items = (await h.get(`/conversations/${conversation}/items?limit=100&order=asc`, tight.key)).body.data;
    expect(items).toHaveLength(answered.length * 2);
    expect(
      items
        .filter((item: any) => item.role === 'assistant')
        .map((item: any) => item.id)
        .sort(),
    ).toEqual(answered.map((call) => call.body.output[0].id).sort());
    const charged = answered.reduce((sum, call) => sum + call.body.usage.credits_used, 0);
    expect(charged).toBeLessThanOrEqual(price * 3);
  });

  it('appends nothing when the call is refused for credits', async () => {
    const poor = await h.tenant({ credits: 0 });
    const conversation = (await h.post('/conversations', poor.key, { items: [user('Hello.')] })).body;
    const refused = await ask(conversation.id, 'Go on.', {}, poor.key);
    expect(refused.status).toBe(402);
    expect((await h.get(`/conversations/${conversation.id}/items`, poor.key)).body.data).toHaveLength(1);
  });
});
