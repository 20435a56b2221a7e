import { describe, expect, it } from 'vitest';
import { errorOf, useHarness, useTenant } from '../../support/harness.js';

// GET /responses/{id}/input_items (DECISIONS.md, Responses): what the model was given — the restored
// turns, then the response's own input — with ids that work as cursors, paged by `cursor` or `after`.
// Every answer is validated against the contract by the harness.

const h = useHarness();
const t = useTenant(h, { credits: 100_000 });
const ask = (input: unknown, previous?: string) =>
  h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input, ...(previous ? { previous_response_id: previous } : {}) });
const itemsOf = async (id: string, query = '') => {
  const page = await h.get(`/responses/${id}/input_items${query}`, t.key);
  expect(page.status).toBe(200);
  return page.body;
};
/** An item as [type or role, its text]: what the model read. */
const gist = (item: any): [string, string] =>
  item.type === 'message'
    ? [item.role, item.content.map((part: any) => part.text).join('|')]
    : item.type === 'function_call'
      ? [`call ${item.call_id}`, `${item.name}(${item.arguments})`]
      : [`output ${item.call_id}`, item.output];

/** Three turns: items of every kind, a turn given as a string, and a reference to the first answer. */
async function conversation() {
  const first = await ask([
    { role: 'system', content: 'Be brief.' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'Our renewal is March 3.' },
        { type: 'input_text', text: 'We have 120 seats.' },
      ],
    },
  ]);
  const second = await ask('What is my renewal date?', first.body.id);
  const third = await ask(
    [
      { type: 'item_reference', id: first.body.output[0].id },
      { role: 'user', content: 'Check the weather in Lisbon.', id: 'msg_client_given' },
      { type: 'function_call', call_id: 'lookup-1', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
      {
        type: 'function_call_output',
        call_id: 'lookup-1',
        output: [
          { type: 'input_text', text: 'sunny' },
          { type: 'input_text', text: '24 °C' },
        ],
      },
    ],
    second.body.id,
  );
  expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
  return { first: first.body, second: second.body, third: third.body };
}

describe('GET /responses/{id}/input_items', () => {
  it('lists the restored turns and the response’s own input, with every reference resolved, newest first by default', async () => {
    const { first, second, third } = await conversation();
    const asc = await itemsOf(third.id, '?order=asc');
    expect(asc.data.map(gist)).toEqual([
      ['system', 'Be brief.'],
      ['user', 'Our renewal is March 3.|We have 120 seats.'],
      ['assistant', first.output[0].content[0].text],
      ['user', 'What is my renewal date?'],
      ['assistant', second.output[0].content[0].text],
      ['assistant', first.output[0].content[0].text],
      ['user', 'Check the weather in Lisbon.'],
      ['call lookup-1', 'get_weather({"city":"Lisbon"})'],
      ['output lookup-1', 'sunny\n24 °C'],
    ]);
    // Output items keep their ids; an item with an id of its kind keeps it; the rest get derived ones.
    const ids = asc.data.map((item: any) => item.id);
    expect(ids[2]).toBe(first.output[0].id);
    expect(ids[4]).toBe(second.output[0].id);
    expect(ids[6]).toBe('msg_client_given');
    // The first answer, referenced again by the third turn, is listed twice under two ids.
    expect(ids[5]).not.toBe(ids[2]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[7]).toMatch(/^fc_/);
    expect(ids[8]).toMatch(/^fco_/);
    expect([asc.first_id, asc.last_id, asc.has_more, asc.next_cursor]).toEqual([ids[0], ids[8], false, null]);

    const desc = await itemsOf(third.id);
    expect(desc.data).toEqual([...asc.data].reverse());
    // Derived ids are the same on every read, so a cursor stays valid.
    expect((await itemsOf(third.id, '?order=asc')).data.map((item: any) => item.id)).toEqual(ids);
    // A response that continued nothing lists only its own input.
    expect((await itemsOf(first.id, '?order=asc')).data.map(gist)).toEqual(asc.data.slice(0, 2).map(gist));
  });

  it('pages by next_cursor as `cursor` or by OpenAI’s `after`, in either order', async () => {
    const { third } = await conversation();
    const all = (await itemsOf(third.id)).data.map((item: any) => item.id);
    for (const [param, order] of [
      ['cursor', 'desc'],
      ['after', 'desc'],
      ['after', 'asc'],
    ] as const) {
      const seen: string[] = [];
      let page = await itemsOf(third.id, `?limit=4&order=${order}`);
      for (;;) {
        seen.push(...page.data.map((item: any) => item.id));
        expect(page.has_more).toBe(page.next_cursor !== null);
        if (!page.has_more) break;
        expect(page.data).toHaveLength(4);
        expect(page.next_cursor).toBe(page.last_id);
        page = await itemsOf(third.id, `?limit=4&order=${order}&${param}=${page.next_cursor}`);
      }
      expect(seen).toEqual(order === 'desc' ? all : [...all].reverse());
    }
    // The last item as the cursor: an empty page.
    const empty = await itemsOf(third.id, `?after=${all.at(-1)}`);
    expect([empty.data, empty.first_id, empty.last_id, empty.has_more]).toEqual([[], null, null, false]);
  });

  it('refuses an id that is not one of its items, and `after` and `cursor` naming different items', async () => {
    const { second, third } = await conversation();
    const foreign = await h.get(`/responses/${second.id}/input_items?after=msg_client_given`, t.key);
    expect([foreign.status, errorOf(foreign)]).toEqual([400, { type: 'invalid_request_error', code: 'invalid_cursor', param: 'after' }]);
    const ids = (await itemsOf(third.id)).data.map((item: any) => item.id);
    const both = await h.get(`/responses/${third.id}/input_items?after=${ids[0]}&cursor=${ids[1]}`, t.key);
    expect([both.status, errorOf(both)]).toEqual([400, { type: 'invalid_request_error', code: 'parameter_conflict', param: 'after' }]);
    const same = await h.get(`/responses/${third.id}/input_items?after=${ids[0]}&cursor=${ids[0]}`, t.key);
    expect(same.body.data[0].id).toBe(ids[1]);
    const chat = await h.get('/responses/chatcmpl_abc/input_items', t.key);
    expect([chat.status, errorOf(chat).param]).toEqual([400, 'id']);
    expect((await h.get('/responses/resp_doesnotexist/input_items', t.key)).status).toBe(404);
  });

  it('no longer lists turns deleted since, nor an answer a deleted response gave', async () => {
    const { first, second, third } = await conversation();
    expect((await h.delete(`/responses/${second.id}`, t.key)).status).toBe(200);
    // The chain stopped at the deleted turn: only the third turn's own input, its reference still resolved.
    const own = await itemsOf(third.id, '?order=asc');
    expect(own.data.map(gist)).toEqual([
      ['assistant', first.output[0].content[0].text],
      ['user', 'Check the weather in Lisbon.'],
      ['call lookup-1', 'get_weather({"city":"Lisbon"})'],
      ['output lookup-1', 'sunny\n24 °C'],
    ]);
    expect(own.data[0].id).toBe(first.output[0].id);
    expect((await h.delete(`/responses/${first.id}`, t.key)).status).toBe(200);
    expect((await itemsOf(third.id, '?order=asc')).data.map(gist)).toEqual(own.data.slice(1).map(gist));
    expect((await h.get(`/responses/${second.id}/input_items`, t.key)).status).toBe(404);
  });
});
