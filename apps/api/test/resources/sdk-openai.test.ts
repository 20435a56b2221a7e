import OpenAI from 'openai';
import { zodFunction, zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES, PERSONA, startLibServer, upstreamBodies, type LibServer } from '../support/sdk-libs.js';

// Issue 11 with the official `openai` package: only baseURL, apiKey and the Persona-Id default header;
// no persona_id in the body, no custom fetch. Every test runs on the offline engine and on the fake upstream.

let server: LibServer;
let openai: OpenAI;

beforeAll(async () => {
  server = await startLibServer();
  openai = new OpenAI({ apiKey: server.t.key, baseURL: server.baseURL, maxRetries: 0, defaultHeaders: { 'Persona-Id': PERSONA } });
});
afterAll(() => server.close());

const Rating = z.object({ score: z.number().int().min(1).max(10), reason: z.string() });
const ratingJson = JSON.stringify({ score: 7, reason: 'Clear and short.' });
const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;

describe.each(ENGINES)('the openai SDK on the %s engine', (engine) => {
  it('generates and streams a response (create, stream().finalResponse()) with the persona from the header', () =>
    server.on(engine, async () => {
      const response = await openai.responses.create({
        model: 'service-1',
        input: 'Would you trial a usage-based analytics tool?',
        top_p: 0.9,
        user: 'u-42',
        safety_identifier: 'sid-42',
        prompt_cache_key: 'k1',
        service_tier: 'auto',
        truncation: 'auto',
        include: [],
        prompt_cache_retention: '24h',
      });
      expect(response.status).toBe('completed');
      expect(response.output_text.length).toBeGreaterThan(0);
      expect((response as unknown as { persona_id: string }).persona_id).toBe(PERSONA);
      // Accepted and echoed, as OpenAI does.
      expect([response.top_p, response.user, response.safety_identifier, response.prompt_cache_key, response.truncation]).toEqual([
        0.9,
        'u-42',
        'sid-42',
        'k1',
        'auto',
      ]);

      const stream = openai.responses.stream({ model: 'service-1', input: 'First reaction to usage-based pricing?' });
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      expect(final.status).toBe('completed');
      expect(final.output_text).toBe(deltas.join(''));
      expect(final.output_text.length).toBeGreaterThan(0);
    }));

  it('parses structured output with zod (responses.parse, chat.completions.parse)', () =>
    server.on(engine, async () => {
      server.script(engine, { content: ratingJson }, { content: ratingJson });
      const parsed = await openai.responses.parse({
        model: 'service-1',
        input: 'Rate our tagline "Know your buyer".',
        text: { format: zodTextFormat(Rating, 'rating') },
      });
      expect(Rating.parse(parsed.output_parsed)).toEqual(parsed.output_parsed);
      const completion = await openai.chat.completions.parse({
        model: 'service-1',
        messages: [{ role: 'user', content: 'Rate our tagline "Know your buyer".' }],
        response_format: zodResponseFormat(Rating, 'rating'),
      });
      const message = completion.choices[0]?.message;
      expect(Rating.parse(message?.parsed)).toEqual(message?.parsed);
    }));

  it('runs a multi-step tool loop on /responses from the returned output items, then a follow-up turn', () =>
    server.on(engine, async () => {
      const tools: OpenAI.Responses.Tool[] = [
        { type: 'function', name: 'get_weather', description: 'Current weather of a city.', parameters: weatherParameters, strict: true },
      ];
      server.script(
        engine,
        { tool_calls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
        { content: 'It is 21 degrees and sunny in Paris.' },
        { content: 'Yes, take sunglasses.' },
      );
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'What is the weather in Paris?' }];
      const first = await openai.responses.create({ model: 'service-1', input, tools, tool_choice: 'required', parallel_tool_calls: false, max_tool_calls: 2 });
      const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
      expect(call?.name).toBe('get_weather');
      input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
        type: 'function_call_output',
        call_id: call!.call_id,
        output: '{"celsius":21,"sky":"sunny"}',
      });
      const second = await openai.responses.create({ model: 'service-1', input, tools });
      expect(second.output_text.length).toBeGreaterThan(0);
      // The previous answer sent back as returned (message items with id, status and annotations).
      input.push(...(second.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Should I take sunglasses?' });
      const third = await openai.responses.create({ model: 'service-1', input, tools, tool_choice: 'none' });
      expect(third.output_text.length).toBeGreaterThan(0);
    }));

  it('runs a streamed tool loop on both endpoints, follow-ups built from the streams’ final objects', () =>
    server.on(engine, async () => {
      server.script(engine, { tool_calls: [{ id: 'call_s1', name: 'get_weather', arguments: '{"city":"Rome"}' }] }, { content: 'Rome is warm.' });
      server.script(engine, { tool_calls: [{ id: 'call_s2', name: 'get_weather', arguments: '{"city":"Rome"}' }] }, { content: 'Rome is warm.' });
      const tools: OpenAI.Responses.Tool[] = [
        { type: 'function', name: 'get_weather', description: 'Current weather of a city.', parameters: weatherParameters, strict: true },
      ];
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'What is the weather in Rome?' }];
      const first = await openai.responses.stream({ model: 'service-1', input, tools, tool_choice: 'required' }).finalResponse();
      const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"celsius":27}' });
      const second = await openai.responses.stream({ model: 'service-1', input, tools }).finalResponse();
      expect(second.output_text.length).toBeGreaterThan(0);

      const chatTools: OpenAI.Chat.ChatCompletionTool[] = [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city.', parameters: weatherParameters } },
      ];
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Rome?' }];
      const asked = await openai.chat.completions.stream({ model: 'service-1', messages, tools: chatTools, tool_choice: 'required' }).finalMessage();
      expect(asked.tool_calls?.[0]?.type === 'function' && asked.tool_calls[0].function.name).toBe('get_weather');
      messages.push(asked, { role: 'tool', tool_call_id: asked.tool_calls![0]!.id, content: '{"celsius":27}' });
      const answer = await openai.chat.completions.stream({ model: 'service-1', messages, tools: chatTools }).finalContent();
      expect(answer?.length).toBeGreaterThan(0);
    }));

  it('streams chat completions (chat.completions.stream) and runs tools (runTools)', () =>
    server.on(engine, async () => {
      server.script(engine, { content: 'Probably not this quarter.' });
      const stream = openai.chat.completions.stream({
        model: 'service-1',
        messages: [{ role: 'user', content: 'Would you switch CRMs this quarter?' }],
        stop: ['\n\n\n'],
        seed: 7,
        frequency_penalty: 0.2,
        presence_penalty: 0.1,
        n: 1,
      });
      let text = '';
      stream.on('content', (delta) => (text += delta));
      const completion = await stream.finalChatCompletion();
      expect(completion.choices[0]?.message.content).toBe(text);
      expect(text.length).toBeGreaterThan(0);

      server.script(engine, { tool_calls: [{ id: 'call_w2', name: 'get_weather', arguments: '{"city":"Lyon"}' }] }, { content: 'Lyon is at 18 degrees.' });
      const asked: string[] = [];
      const runner = openai.chat.completions.runTools({
        model: 'service-1',
        messages: [{ role: 'user', content: 'What is the weather in Lyon?' }],
        tools: [
          zodFunction({
            name: 'get_weather',
            description: 'Current weather of a city.',
            parameters: z.object({ city: z.string() }),
            function: (args: { city: string }) => {
              asked.push(args.city);
              return { celsius: 18 };
            },
          }),
        ],
      });
      const content = await runner.finalContent();
      expect(asked).toHaveLength(1);
      expect(content?.length).toBeGreaterThan(0);
      // The second request carried the assistant's tool_calls message and the tool result built by the SDK.
      expect((await runner.allChatCompletions()).length).toBe(2);
    }));

  it('lists models with for await', async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(['service-1']);
  });
});

describe('the openai SDK against the contract', () => {
  it('passes honoured settings to the upstream model', () =>
    server.on('upstream', async () => {
      const from = server.fake.requests.length;
      await openai.chat.completions.create({
        model: 'service-1',
        messages: [{ role: 'user', content: 'Hi' }],
        top_p: 0.5,
        stop: 'END',
        seed: 3,
        frequency_penalty: 0.4,
        presence_penalty: -0.2,
      });
      await openai.responses.create({
        model: 'service-1',
        input: 'Hi',
        top_p: 0.25,
        parallel_tool_calls: false,
        tools: [{ type: 'function', name: 'get_weather', parameters: weatherParameters, strict: null }],
      });
      const [chat, responses] = upstreamBodies(server, from);
      expect(chat).toMatchObject({ top_p: 0.5, stop: ['END'], seed: 3, frequency_penalty: 0.4, presence_penalty: -0.2 });
      expect(responses).toMatchObject({ top_p: 0.25, parallel_tool_calls: false });
    }));

  it('drops tool calls beyond parallel_tool_calls: false', () =>
    server.on('upstream', async () => {
      server.script('upstream', {
        tool_calls: [
          { name: 'get_weather', arguments: '{"city":"A"}' },
          { name: 'get_weather', arguments: '{"city":"B"}' },
        ],
      });
      const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', parameters: weatherParameters, strict: true }];
      const response = await openai.responses.create({ model: 'service-1', input: 'Weather in A and B?', tools, parallel_tool_calls: false });
      expect(response.output.filter((item) => item.type === 'function_call')).toHaveLength(1);
    }));

  it('cuts the offline text at a stop sequence', async () => {
    const full = await openai.chat.completions.create({ model: 'service-1', messages: [{ role: 'user', content: 'Describe your week.' }] });
    const text = full.choices[0]?.message.content ?? '';
    const word = text.split(' ')[3]!;
    const cut = await openai.chat.completions.create({ model: 'service-1', messages: [{ role: 'user', content: 'Describe your week.' }], stop: [word] });
    expect(cut.choices[0]?.message.content).toBe(text.slice(0, text.indexOf(word)));
  });

  it('refuses what it cannot honour with unsupported_parameter, naming the field', async () => {
    const cases: Array<[Promise<unknown>, string]> = [
      [openai.chat.completions.create({ model: 'service-1', messages: [{ role: 'user', content: 'Hi' }], n: 2 }), 'n'],
      [openai.chat.completions.create({ model: 'service-1', messages: [{ role: 'user', content: 'Hi' }], logprobs: true }), 'logprobs'],
      [openai.responses.create({ model: 'service-1', input: 'Hi', background: true }), 'background'],
      [openai.responses.create({ model: 'service-1', input: 'Hi', top_logprobs: 3 }), 'top_logprobs'],
      [openai.responses.create({ model: 'service-1', input: 'Hi', text: { format: { type: 'json_object' } } }), 'text.format.type'],
      [
        openai.chat.completions.create({
          model: 'service-1',
          messages: [{ role: 'user', content: 'Hi' }],
          moderation: { model: 'omni-moderation-latest' },
        } as never),
        'moderation',
      ],
    ];
    // Every request is already in flight: take each rejection now, so none is unhandled while an earlier one is awaited.
    const settled = cases.map(([call, param]) => [call.catch((e: unknown) => e), param] as const);
    for (const [call, param] of settled) {
      const error = (await call) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect([error.code, error.param]).toEqual(['unsupported_parameter', param]);
    }
  });

  it('names the branch a union item selects, at the real field', async () => {
    const error = (await openai.responses
      .create({ model: 'service-1', input: [{ role: 'user', content: 'Hi' }, { type: 'function_call', call_id: 'call_1', arguments: '{}' } as never] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([error.code, error.param]).toEqual(['missing_parameter', 'input.1.name']);
    const badPart = (await openai.responses
      .create({ model: 'service-1', input: [{ role: 'assistant', content: [{ type: 'output_text', text: 5 }] } as never] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([badPart.code, badPart.param]).toEqual(['invalid_parameter', 'input.0.content.0.text']);
    const badType = (await openai.responses
      .create({ model: 'service-1', input: [{ type: 'computer_call_output', call_id: 'c' } as never] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([badType.code, badType.param]).toEqual(['invalid_parameter', 'input.0.type']);
    const chat = (await openai.chat.completions
      .create({ model: 'service-1', messages: [{ role: 'tool', content: 'x' } as never] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([chat.code, chat.param]).toEqual(['missing_parameter', 'messages.0.tool_call_id']);
    const unknown = (await openai.responses.create({ model: 'service-1', input: 'Hi', tempreature: 1 } as never).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect([unknown.code, unknown.param]).toEqual(['unknown_parameter', 'tempreature']);
  });

  it('resolves item_reference to the caller’s own output items only', async () => {
    const first = await openai.responses.create({ model: 'service-1', input: 'Describe your ideal vendor.' });
    const message = first.output.find((item) => item.type === 'message')!;
    const next = await openai.responses.create({
      model: 'service-1',
      input: [
        { role: 'user', content: 'Describe your ideal vendor.' },
        { type: 'item_reference', id: message.id },
        { role: 'user', content: 'Shorter, please.' },
      ],
    });
    expect(next.status).toBe('completed');
    const other = await server.h.tenant({ credits: 1000 });
    const stranger = new OpenAI({ apiKey: other.key, baseURL: server.baseURL, maxRetries: 0, defaultHeaders: { 'Persona-Id': PERSONA } });
    const refused = (await stranger.responses
      .create({
        model: 'service-1',
        input: [
          { type: 'item_reference', id: message.id },
          { role: 'user', content: 'Go on.' },
        ],
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    const unknown = (await openai.responses
      .create({
        model: 'service-1',
        input: [
          { type: 'item_reference', id: 'msg_doesnotexist' },
          { role: 'user', content: 'Go on.' },
        ],
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([refused.status, refused.code, refused.param]).toEqual([400, 'invalid_parameter', 'input.0.id']);
    expect([unknown.status, unknown.code, unknown.param, unknown.message]).toEqual([
      400,
      'invalid_parameter',
      'input.0.id',
      refused.message.replace(message.id, 'msg_doesnotexist'),
    ]);
  });

  it('continues a conversation by previous_response_id, raises OpenAI’s previous_response_not_found for an id it cannot continue, retrieves and deletes', async () => {
    const first = await openai.responses.create({ model: 'service-1', input: 'My renewal date is March 3 and we have 120 seats.' });
    const next = await openai.responses.create({ model: 'service-1', input: 'What is my renewal date?', previous_response_id: first.id });
    expect(next.previous_response_id).toBe(first.id);
    expect(next.output_text).toBe('You said: “My renewal date is March 3 and we have 120 seats.”');
    const missing = (await openai.responses
      .create({ model: 'service-1', input: 'Go on.', previous_response_id: 'resp_doesnotexist' })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(missing).toBeInstanceOf(OpenAI.BadRequestError);
    expect([missing.code, missing.param]).toEqual(['previous_response_not_found', 'previous_response_id']);
    // retrieve and delete, as the SDK calls them.
    const retrieved = await openai.responses.retrieve(next.id);
    expect(retrieved.output_text).toBe(next.output_text);
    expect(retrieved.previous_response_id).toBe(first.id);
    // inputItems.list pages by the last item's id as `after`: the restored turn, then the new question.
    const items = [];
    for await (const item of openai.responses.inputItems.list(next.id, { limit: 1, order: 'asc' })) items.push(item);
    expect(
      items.map((item) => (item.type === 'message' ? [item.role, item.content.map((part) => ('text' in part ? part.text : '')).join('')] : item.type)),
    ).toEqual([
      ['user', 'My renewal date is March 3 and we have 120 seats.'],
      ['assistant', first.output_text],
      ['user', 'What is my renewal date?'],
    ]);
    expect(items[1]!.id).toBe(first.output[0]!.id);
    await openai.responses.delete(first.id);
    const gone = (await openai.responses.retrieve(first.id).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('counts a follow-up’s input tokens (responses.inputTokens.count) as the call then charges them', async () => {
    const first = await openai.responses.create({ model: 'service-1', input: 'We have 240 seats and renew on March 3.' });
    const params = { model: 'service-1', input: 'When do we renew?', previous_response_id: first.id } as const;
    const counted = await openai.responses.inputTokens.count(params);
    expect(counted.object).toBe('response.input_tokens');
    const answered = await openai.responses.create(params);
    expect(counted.input_tokens).toBe(answered.usage!.input_tokens);
  });

  it('reads stored chat completions back: retrieve, list by metadata, update, messages.list and delete', async () => {
    const run = `run-${Date.now()}`;
    const made = [];
    for (const question of ['Would you pay 2% per cover?', 'And at 1%?', 'What if bookings doubled?']) {
      server.h.clock.advance(1); // the test clock stands still
      made.push(await openai.chat.completions.create({ model: 'service-1', store: true, metadata: { run }, messages: [{ role: 'user', content: question }] }));
    }
    const retrieved = await openai.chat.completions.retrieve(made[0]!.id);
    expect(retrieved.choices[0]!.message.content).toBe(made[0]!.choices[0]!.message.content);
    // list pages by the last completion's id as `after`, filtered by the metadata pair.
    const listed = [];
    for await (const completion of openai.chat.completions.list({ metadata: { run }, limit: 2 })) listed.push(completion.id);
    expect(listed).toEqual(made.map((completion) => completion.id));
    const latest = await openai.chat.completions.list({ metadata: { run }, order: 'desc', limit: 1 });
    expect(latest.data.map((completion) => completion.id)).toEqual([made[2]!.id]);

    const updated = await openai.chat.completions.update(made[1]!.id, { metadata: { run, reviewed: 'yes' } });
    expect((updated as unknown as { metadata: Record<string, string> }).metadata).toEqual({ run, reviewed: 'yes' });
    const reviewed = await openai.chat.completions.list({ metadata: { run, reviewed: 'yes' } });
    expect(reviewed.data.map((completion) => completion.id)).toEqual([made[1]!.id]);

    const messages = [];
    for await (const message of openai.chat.completions.messages.list(made[2]!.id)) messages.push([message.id, message.role, message.content]);
    expect(messages).toEqual([[`${made[2]!.id}-0`, 'user', 'What if bookings doubled?']]);

    const deleted = await openai.chat.completions.delete(made[0]!.id);
    expect(deleted).toEqual({ id: made[0]!.id, object: 'chat.completion.deleted', deleted: true });
    const gone = (await openai.chat.completions.retrieve(made[0]!.id).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('counts the Persona-Id header as part of the request for Idempotency-Key', async () => {
    const params = { model: 'service-1', input: 'Is a free trial enough for you?' } as const;
    const first = await openai.responses.create(params, { headers: { 'Idempotency-Key': 'persona-header-key-1' } });
    const replay = await openai.responses.create(params, { headers: { 'Idempotency-Key': 'persona-header-key-1' } });
    expect(replay.id).toBe(first.id);
    const other = (await openai.responses
      .create(params, { headers: { 'Idempotency-Key': 'persona-header-key-1', 'Persona-Id': 'persona_saas_cfo' } })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([other.status, other.code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('lets the body persona_id win over the header, and needs one of them', async () => {
    const body = await openai.responses.create({
      model: 'service-1',
      input: 'Hi',
      persona_id: 'persona_saas_cfo',
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect((body as unknown as { persona_id: string }).persona_id).toBe('persona_saas_cfo');
    const bare = new OpenAI({ apiKey: server.t.key, baseURL: server.baseURL, maxRetries: 0 });
    const error = (await bare.responses.create({ model: 'service-1', input: 'Hi' }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect([error.status, error.code, error.param]).toEqual([400, 'missing_parameter', 'persona_id']);
  });
});
