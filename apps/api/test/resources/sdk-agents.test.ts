import {
  Agent,
  type AgentInputItem,
  type Model,
  OpenAIChatCompletionsModel,
  OpenAIConversationsSession,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
  user,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES, PERSONA, startLibServer, type LibServer, upstreamBodies } from '../support/sdk-libs.js';

// Issue 24 with the OpenAI Agents SDK (`@openai/agents`), both model classes: a conversation continued from
// the SDK's own `result.history` after a plain, a streamed and a tool turn. The SDK copies the fields of a
// returned chat message onto the text part it sends back (`role`, `refusal`; `annotations` after a stream),
// which the server must accept. Only baseURL, apiKey and the Persona-Id header are configured; the fetch
// below only records what the SDK sent, so the test can show those shapes were really exercised.

setTracingDisabled(true); // offline: no trace export to OpenAI

let server: LibServer;
let client: OpenAI;
const sent: Array<{ path: string; body: any }> = [];

beforeAll(async () => {
  server = await startLibServer();
  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') sent.push({ path: new URL(String(input)).pathname, body: JSON.parse(init.body) });
    return fetch(input, init);
  };
  client = new OpenAI({ apiKey: server.t.key, baseURL: server.baseURL, maxRetries: 0, defaultHeaders: { 'Persona-Id': PERSONA }, fetch: recordingFetch });
});
afterAll(() => server.close());

const MODELS = {
  chat: (openai: OpenAI): Model => new OpenAIChatCompletionsModel(openai, 'service-1'),
  responses: (openai: OpenAI): Model => new OpenAIResponsesModel(openai, 'service-1'),
} as const;
type Endpoint = keyof typeof MODELS;
const PATHS: Record<Endpoint, string> = { chat: '/api/v1/chat/completions', responses: '/api/v1/responses' };

/** A buyer agent, and one that must call `get_weather` (the cities it was asked for land in `asked`). */
function buyerAgents(model: Model) {
  const asked: string[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather of a city.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      asked.push(city);
      return JSON.stringify({ city, celsius: 21, sky: 'sunny' });
    },
  });
  const buyer = new Agent({ name: 'Buyer', instructions: 'Answer as the buyer.', model });
  // toolChoice `required` so the offline engine calls the tool; the SDK resets it after the call.
  const withWeather = new Agent({ name: 'Buyer', instructions: 'Answer as the buyer.', model, tools: [getWeather], modelSettings: { toolChoice: 'required' } });
  return { asked, buyer, withWeather };
}

/** The assistant content parts the SDK sent back in the last request to `endpoint`. */
function assistantPartsSent(endpoint: Endpoint): any[] {
  const last = sent.filter((request) => request.path === PATHS[endpoint]).at(-1)!.body;
  const history: any[] = endpoint === 'chat' ? last.messages : last.input;
  return history.filter((item) => item.role === 'assistant' && Array.isArray(item.content)).flatMap((item) => item.content);
}

describe.each(ENGINES)('the OpenAI Agents SDK on the %s engine', (engine) => {
  describe.each(['chat', 'responses'] as const)('with the %s model class', (endpoint) => {
    it('continues a conversation from result.history after a plain, a streamed and a tool turn', () =>
      server.on(engine, async () => {
        const { asked, buyer, withWeather } = buyerAgents(MODELS[endpoint](client));

        // 1. A plain turn.
        server.script(engine, { content: 'Only if it pays back within a quarter.' });
        const plain = await run(buyer, 'Would you trial a usage-based analytics tool?');
        expect(String(plain.finalOutput).length).toBeGreaterThan(0);
        let history: AgentInputItem[] = plain.history;

        // 2. A streamed turn continued from that history.
        server.script(engine, { content: 'Per seat would be simpler to budget.' });
        const streamed = await run(buyer, [...history, user('And the pricing model you prefer?')], { stream: true });
        let deltas = '';
        for await (const text of streamed.toTextStream()) deltas += text;
        await streamed.completed;
        expect(streamed.finalOutput).toBe(deltas);
        expect(deltas.length).toBeGreaterThan(0);
        if (endpoint === 'chat') {
          // The plain turn's returned message fields came back on its text part: the shape that was a 400.
          expect(assistantPartsSent('chat')).toContainEqual(expect.objectContaining({ type: 'text', role: 'assistant', refusal: null }));
        }
        history = streamed.history;

        // 3. A tool turn continued from the streamed history.
        server.script(engine, { tool_calls: [{ id: 'call_ag1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }, { content: 'Sunny, 21 degrees.' });
        const withTool = await run(withWeather, [...history, user('What is the weather in Paris?')]);
        expect(asked).toHaveLength(1);
        expect(String(withTool.finalOutput).length).toBeGreaterThan(0);
        if (endpoint === 'chat') {
          // The streamed turn's message came back with the `annotations` the SDK keeps from a stream.
          expect(assistantPartsSent('chat')).toContainEqual(expect.objectContaining({ type: 'text', annotations: [] }));
        }
        history = withTool.history;
        expect(history.some((item) => item.type === 'function_call_result')).toBe(true);

        // 4. A plain turn after the tool turn, streamed and not.
        server.script(engine, { content: 'Yes, take sunglasses.' }, { content: 'Yes, and a hat.' });
        const after = await run(buyer, [...history, user('Should I take sunglasses?')]);
        expect(String(after.finalOutput).length).toBeGreaterThan(0);
        const afterStreamed = await run(buyer, [...after.history, user('Anything else?')], { stream: true });
        await afterStreamed.completed;
        expect(String(afterStreamed.finalOutput).length).toBeGreaterThan(0);
        // Every earlier turn went back as history: five user messages in the last request.
        const last = sent.filter((request) => request.path === PATHS[endpoint]).at(-1)!.body;
        const items: any[] = endpoint === 'chat' ? last.messages : last.input;
        expect(items.filter((item) => item.role === 'user')).toHaveLength(5);
        expect(items.filter((item) => item.role === 'assistant').length).toBeGreaterThanOrEqual(4);
      }));
  });
});

describe.each(ENGINES)('the OpenAI Agents SDK on the %s engine, the conversation kept on the server (previousResponseId)', (engine) => {
  it('sends only the new items of each request — a tool result too — and the model still sees the whole conversation', () =>
    server.on(engine, async () => {
      const { asked, buyer, withWeather } = buyerAgents(MODELS.responses(client));
      const responsesSent = () => sent.filter((request) => request.path === PATHS.responses);

      server.script(engine, { content: 'Noted.' });
      const first = await run(buyer, 'My accounting system is NetSuite and my budget is $40k a year.');
      expect(first.lastResponseId).toMatch(/^resp_/);

      server.script(engine, { tool_calls: [{ id: 'call_srv1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }, { content: 'Sunny, 21 degrees.' });
      const before = responsesSent().length;
      const withTool = await run(withWeather, 'What is the weather in Paris?', { previousResponseId: first.lastResponseId });
      expect(asked).toEqual(['Paris']);
      const toolRound = responsesSent().slice(before);
      expect(toolRound).toHaveLength(2);
      expect(toolRound[0]!.body.previous_response_id).toBe(first.lastResponseId);
      // The second request of the run: only the function's output, chained to the response that called it.
      expect(toolRound[1]!.body.input.map((item: any) => item.type)).toEqual(['function_call_output']);
      expect(toolRound[1]!.body.previous_response_id).toMatch(/^resp_/);
      expect(toolRound[1]!.body.previous_response_id).not.toBe(first.lastResponseId);

      server.script(engine, { content: 'NetSuite, as you said.' });
      const upstreamFrom = server.fake.requests.length;
      const recall = await run(buyer, 'What is my accounting system?', { previousResponseId: withTool.lastResponseId });
      expect(responsesSent().at(-1)!.body.input).toHaveLength(1);
      if (engine === 'offline') expect(String(recall.finalOutput)).toBe('You said: “My accounting system is NetSuite and my budget is $40k a year.”');
      else {
        // Upstream, the whole conversation went to the model: both user turns, the call and its result.
        const messages = upstreamBodies(server, upstreamFrom)[0].messages;
        expect(messages.map((message: any) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
        expect(messages[1].content).toContain('NetSuite');
      }
    }));
});

describe.each(ENGINES)('the OpenAI Agents SDK on the %s engine, its memory in OpenAIConversationsSession', (engine) => {
  it('keeps every turn, a tool round too, in a server conversation; pops the last item and clears the session', () =>
    server.on(engine, async () => {
      const { asked, buyer, withWeather } = buyerAgents(MODELS.responses(client));
      const session = new OpenAIConversationsSession({ client });

      server.script(engine, { content: 'Noted.' });
      await run(buyer, 'My accounting system is NetSuite and my budget is $40k a year.', { session });
      const conversationId = await session.getSessionId();
      expect(conversationId).toMatch(/^conv_/);

      server.script(engine, { tool_calls: [{ id: 'call_ses1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }, { content: 'Sunny, 21 degrees.' });
      await run(withWeather, 'What is the weather in Paris?', { session });
      expect(asked).toEqual(['Paris']);

      server.script(engine, { content: 'NetSuite, as you said.' });
      const upstreamFrom = server.fake.requests.length;
      const recall = await run(buyer, 'What is my accounting system?', { session });
      // The SDK read the session back and sent it whole: the model saw the first turn.
      if (engine === 'offline') expect(String(recall.finalOutput)).toBe('You said: “My accounting system is NetSuite and my budget is $40k a year.”');
      else expect(upstreamBodies(server, upstreamFrom)[0].messages[1].content).toContain('NetSuite');

      // What the server holds, as the openai SDK pages it: three user turns, the call, its output, four answers.
      const stored = [];
      for await (const item of client.conversations.items.list(conversationId, { order: 'asc', limit: 3 })) stored.push(item);
      expect(stored.map((item) => (item.type === 'message' ? item.role : item.type))).toEqual([
        'user',
        'assistant',
        'user',
        'function_call',
        'function_call_output',
        'assistant',
        'user',
        'assistant',
      ]);
      const items = await session.getItems();
      expect(items).toHaveLength(8);
      expect(await session.getItems(2)).toEqual(items.slice(-2));

      const popped = await session.popItem();
      expect(popped).toMatchObject({ role: 'assistant' });
      expect(await session.getItems()).toHaveLength(7);
      await session.clearSession();
      const gone = (await client.conversations.retrieve(conversationId).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    }));
});

describe.each(ENGINES)('the OpenAI Agents SDK on the %s engine, a server conversation (conversationId)', (engine) => {
  it('sends only the new items and the conversation id; the model sees the earlier turns, a tool round too', () =>
    server.on(engine, async () => {
      const { asked, buyer, withWeather } = buyerAgents(MODELS.responses(client));
      const conversationId = (await client.conversations.create({})).id;
      const responsesSent = () => sent.filter((request) => request.path === PATHS.responses);

      server.script(engine, { content: 'Noted.' });
      await run(buyer, 'My accounting system is NetSuite and my budget is $40k a year.', { conversationId });
      server.script(engine, { tool_calls: [{ id: 'call_conv1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }, { content: 'Sunny, 21 degrees.' });
      await run(withWeather, 'What is the weather in Paris?', { conversationId });
      expect(asked).toEqual(['Paris']);

      server.script(engine, { content: 'NetSuite, as you said.' });
      const upstreamFrom = server.fake.requests.length;
      const recall = await run(buyer, 'What is my accounting system?', { conversationId });
      const last = responsesSent().at(-1)!.body;
      expect([last.conversation, last.input.length]).toEqual([conversationId, 1]);
      if (engine === 'offline') expect(String(recall.finalOutput)).toBe('You said: “My accounting system is NetSuite and my budget is $40k a year.”');
      else {
        const messages = upstreamBodies(server, upstreamFrom)[0].messages;
        expect(messages.map((message: any) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
      }
    }));
});

describe('assistant history in every shape the official SDKs send back', () => {
  it('accepts them on /chat/completions and still refuses a field nobody sends', async () => {
    const call = { id: 'call_h1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } };
    const shapes: any[] = [
      // openai SDK: the returned message as is (parse() adds `parsed`), OpenAI's own `annotations` and `audio`.
      { role: 'assistant', content: 'Plain.', refusal: null, parsed: null, annotations: [], audio: null, function_call: null },
      // @openai/agents, non-streamed turn: the message's fields copied onto its text part.
      { role: 'assistant', content: [{ type: 'text', text: 'Copied.', role: 'assistant', refusal: null }] },
      // @openai/agents, streamed turn, with a URL citation kept from the stream.
      {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: 'Cited.',
            annotations: [{ type: 'url_citation', url_citation: { start_index: 0, end_index: 5, title: 'T', url: 'https://example.com' } }],
          },
        ],
      },
      // @openai/agents, a refusal part with the message's other fields, and an audio part turned into `audio`.
      {
        role: 'assistant',
        content: [{ type: 'refusal', refusal: 'No.', role: 'assistant', content: null, annotations: [] }],
        audio: { id: '', expires_at: 1, transcript: 'No.' },
      },
      // @openai/agents, a turn with text and tool calls: the tool calls are copied onto the text part too.
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.', role: 'assistant', refusal: null, tool_calls: [call] }], tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_h1', content: [{ type: 'text', text: '{"celsius":4}' }] },
    ];
    const completion = await client.chat.completions.create({
      model: 'service-1',
      messages: [{ role: 'user', content: 'Hi' }, ...shapes, { role: 'user', content: 'So?' }],
    });
    expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);

    const unknown = (await client.chat.completions
      .create({
        model: 'service-1',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'x', colour: 'red' }] } as never,
          { role: 'user', content: 'So?' },
        ],
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([unknown.status, unknown.code, unknown.param]).toEqual([400, 'unknown_parameter', 'messages.1.content.0.colour']);
  });
});
