import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, Output, streamText, tool, type ModelMessage } from 'ai';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modelResponses } from '../../src/db/schema/index.js';
import { ENGINES, PERSONA, startLibServer, type LibServer } from '../support/sdk-libs.js';

// Issue 11 with Vercel's AI SDK (`ai` + `@ai-sdk/openai`): the provider gets only baseURL, apiKey and the
// Persona-Id header. Its default model uses the Responses API (with store: true it sends earlier turns as
// item_reference items); `.chat()` uses /chat/completions. No custom fetch.

let server: LibServer;
let provider: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  server = await startLibServer();
  provider = createOpenAI({ apiKey: server.t.key, baseURL: server.baseURL, headers: { 'Persona-Id': PERSONA } });
});
afterAll(() => server.close());

const Rating = z.object({ score: z.number().int().min(1).max(10), reason: z.string() });
const ratingJson = JSON.stringify({ score: 8, reason: 'Memorable.' });
const weather = (asked: string[]) =>
  tool({
    description: 'Current weather of a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }: { city: string }) => {
      asked.push(city);
      return { city, celsius: 21, sky: 'sunny' };
    },
  });

const models = { responses: () => provider('service-1'), chat: () => provider.chat('service-1') };

describe.each(ENGINES)('the AI SDK on the %s engine', (engine) => {
  describe.each(['responses', 'chat'] as const)('with the %s model', (api) => {
    it('generates and streams text', () =>
      server.on(engine, async () => {
        const generated = await generateText({
          model: models[api](),
          prompt: 'Would you trial a usage-based analytics tool?',
          maxRetries: 0,
          topP: 0.9,
          seed: 5,
        });
        expect(generated.text.length).toBeGreaterThan(0);
        expect(generated.finishReason).toBe('stop');
        const streamed = streamText({ model: models[api](), prompt: 'First reaction to usage-based pricing?', maxRetries: 0 });
        let text = '';
        for await (const delta of streamed.textStream) text += delta;
        expect(text.length).toBeGreaterThan(0);
        expect(await streamed.text).toBe(text);
      }));

    it('gives structured output from a zod schema', () =>
      server.on(engine, async () => {
        server.script(engine, { content: ratingJson });
        const result = await generateText({
          model: models[api](),
          prompt: 'Rate our tagline "Know your buyer".',
          output: Output.object({ schema: Rating }),
          maxRetries: 0,
        });
        expect(Rating.parse(result.output)).toEqual(result.output);
      }));

    it('calls a single tool', () =>
      server.on(engine, async () => {
        server.script(engine, { tool_calls: [{ id: 'call_s1', name: 'weather', arguments: '{"city":"Paris"}' }] });
        const asked: string[] = [];
        const result = await generateText({
          model: models[api](),
          prompt: 'What is the weather in Paris?',
          tools: { weather: weather(asked) },
          toolChoice: 'required',
          maxRetries: 0,
        });
        expect(result.toolCalls.map((call) => call.toolName)).toEqual(['weather']);
        expect(asked).toHaveLength(1);
      }));

    it('runs a multi-step tool loop, generated and streamed', () =>
      server.on(engine, async () => {
        const reply = (id: string) => [{ tool_calls: [{ id, name: 'weather', arguments: '{"city":"Paris"}' }] }, { content: 'Sunny, 21 degrees in Paris.' }];
        server.script(engine, ...reply('call_g1'), ...reply('call_s2'));
        const asked: string[] = [];
        const generated = await generateText({
          model: models[api](),
          prompt: 'What is the weather in Paris?',
          tools: { weather: weather(asked) },
          stopWhen: isStepCount(4),
          maxRetries: 0,
        });
        expect(generated.steps.length).toBe(2);
        expect(generated.text.length).toBeGreaterThan(0);
        const streamed = streamText({
          model: models[api](),
          prompt: 'What is the weather in Paris?',
          tools: { weather: weather(asked) },
          stopWhen: isStepCount(4),
          maxRetries: 0,
        });
        expect((await streamed.text).length).toBeGreaterThan(0);
        expect((await streamed.steps).length).toBe(2);
        expect(asked).toHaveLength(2);
      }));

    it('continues a conversation from its own returned messages', () =>
      server.on(engine, async () => {
        server.script(
          engine,
          { tool_calls: [{ id: 'call_m1', name: 'weather', arguments: '{"city":"Paris"}' }] },
          { content: 'Sunny in Paris.' },
          { content: 'Yes, take sunglasses.' },
          { content: 'You asked about Paris.' },
        );
        const asked: string[] = [];
        const referencing = (
          await server.h.db
            .select({ id: modelResponses.id })
            .from(modelResponses)
            .where(and(eq(modelResponses.accountId, server.t.accountId), sql`${modelResponses.request}->'input' @> '[{"type":"item_reference"}]'::jsonb`))
        ).length;
        const messages: ModelMessage[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
        const first = await generateText({
          model: models[api](),
          instructions: 'Answer briefly.',
          messages,
          tools: { weather: weather(asked) },
          stopWhen: isStepCount(4),
          maxRetries: 0,
        });
        messages.push(...first.response.messages, { role: 'user', content: 'Should I take sunglasses?' });
        const second = await generateText({ model: models[api](), messages, tools: { weather: weather(asked) }, maxRetries: 0 });
        expect(second.text.length).toBeGreaterThan(0);
        messages.push(...second.response.messages, { role: 'user', content: 'Which city did I ask about?' });
        const third = streamText({ model: models[api](), messages, tools: { weather: weather(asked) }, maxRetries: 0 });
        expect((await third.text).length).toBeGreaterThan(0);
        if (api === 'responses') {
          // With store: true (its default) the AI SDK sent the earlier turns as item_reference items, resolved here.
          const rows = await server.h.db
            .select({ request: modelResponses.request })
            .from(modelResponses)
            .where(and(eq(modelResponses.accountId, server.t.accountId), sql`${modelResponses.request}->'input' @> '[{"type":"item_reference"}]'::jsonb`));
          expect(rows.length).toBeGreaterThan(referencing);
        }
      }));
  });
});

describe('the AI SDK, Responses model without stored items', () => {
  it('sends history as items, not references, with store: false', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'Describe your ideal vendor.' }];
    const first = await generateText({ model: provider('service-1'), messages, providerOptions: { openai: { store: false } }, maxRetries: 0 });
    messages.push(...first.response.messages, { role: 'user', content: 'Shorter, please.' });
    const second = await generateText({ model: provider('service-1'), messages, providerOptions: { openai: { store: false } }, maxRetries: 0 });
    expect(second.text.length).toBeGreaterThan(0);
  });
});

describe.each(ENGINES)('the AI SDK on the %s engine, the conversation kept on the server', (engine) => {
  it('continues from providerOptions.openai.previousResponseId, sending only the new message', () =>
    server.on(engine, async () => {
      server.script(engine, { content: 'Noted.' }, { content: 'March 3, you said.' });
      const first = await generateText({ model: provider('service-1'), prompt: 'My renewal date is March 3 and we have 120 seats.', maxRetries: 0 });
      const responseId = first.providerMetadata?.openai?.responseId as string;
      expect(responseId).toMatch(/^resp_/);
      const upstreamFrom = server.fake.requests.length;
      const next = await generateText({
        model: provider('service-1'),
        prompt: 'What is my renewal date?',
        providerOptions: { openai: { previousResponseId: responseId } },
        maxRetries: 0,
      });
      const [stored] = await server.h.db
        .select({ request: modelResponses.request })
        .from(modelResponses)
        .where(eq(modelResponses.id, next.providerMetadata?.openai?.responseId as string));
      expect(stored!.request).toMatchObject({ previous_response_id: responseId, input: [{ role: 'user' }] });
      expect((stored!.request.input as unknown[]).length).toBe(1);
      if (engine === 'offline') expect(next.text).toBe('You said: “My renewal date is March 3 and we have 120 seats.”');
      else expect(server.fake.requests[upstreamFrom]!.body.messages[1].content).toBe('My renewal date is March 3 and we have 120 seats.');
    }));
});

describe.each(ENGINES)('the AI SDK on the %s engine, a server conversation', (engine) => {
  it('continues providerOptions.openai.conversation, sending only the new message; each turn joins the conversation', () =>
    server.on(engine, async () => {
      const created = await server.h.post('/conversations', server.t.key, { items: [{ role: 'user', content: 'My budget is $40k a year.' }] });
      const conversation = created.body.id as string;
      server.script(engine, { content: '$40k, you said.' });
      const upstreamFrom = server.fake.requests.length;
      const next = await generateText({
        model: provider('service-1'),
        prompt: 'What is my budget?',
        providerOptions: { openai: { conversation } },
        maxRetries: 0,
      });
      if (engine === 'offline') expect(next.text).toBe('You said: “My budget is $40k a year.”');
      else expect(server.fake.requests[upstreamFrom]!.body.messages[1].content).toBe('My budget is $40k a year.');
      const items = await server.h.get(`/conversations/${conversation}/items?order=asc`, server.t.key);
      expect(items.body.data.map((item: any) => item.role)).toEqual(['user', 'user', 'assistant']);
      expect(items.body.data[2].content[0].text).toBe(next.text);
    }));
});
