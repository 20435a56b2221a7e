import { type AIMessage, type AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { concat } from '@langchain/core/utils/stream';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES, PERSONA, startLibServer, type LibServer } from '../support/sdk-libs.js';

// Issue 11 with LangChain (`@langchain/openai`), on the chat-completions path and with
// `useResponsesApi: true`: only apiKey, configuration.baseURL and the Persona-Id default header.

let server: LibServer;

beforeAll(async () => {
  server = await startLibServer();
});
afterAll(() => server.close());

const Rating = z.object({ score: z.number().int().min(1).max(10), reason: z.string() });
const ratingJson = JSON.stringify({ score: 6, reason: 'Fine.' });

function model(useResponsesApi: boolean, streaming = false): ChatOpenAI {
  return new ChatOpenAI({
    model: 'service-1',
    apiKey: server.t.key,
    useResponsesApi,
    streaming,
    maxRetries: 0,
    configuration: { baseURL: server.baseURL, defaultHeaders: { 'Persona-Id': PERSONA } },
  });
}

const weather = (asked: string[]) =>
  tool(
    async ({ city }: { city: string }) => {
      asked.push(city);
      return JSON.stringify({ city, celsius: 19 });
    },
    { name: 'get_weather', description: 'Current weather of a city.', schema: z.object({ city: z.string() }) },
  );

/** The tool loop LangChain users write: invoke, run each tool call, send the ToolMessages back, until no calls. */
async function toolLoop(
  llm: ReturnType<ChatOpenAI['bindTools']>,
  messages: BaseMessage[],
  asked: string[],
  stream: boolean,
): Promise<AIMessage | AIMessageChunk> {
  const run = weather(asked);
  for (let step = 0; step < 4; step += 1) {
    let reply: AIMessage | AIMessageChunk;
    if (stream) {
      // The chunks merged with LangChain's own concat, the merged chunk sent back as history.
      let merged: AIMessageChunk | undefined;
      for await (const chunk of await llm.stream(messages)) merged = merged ? concat(merged, chunk) : chunk;
      reply = merged!;
    } else reply = (await llm.invoke(messages)) as AIMessage;
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply;
    for (const call of reply.tool_calls)
      messages.push(new ToolMessage({ tool_call_id: call.id!, content: (await run.invoke(call.args as { city: string })) as string }));
  }
  throw new Error('The tool loop did not end.');
}

describe.each(ENGINES)('LangChain on the %s engine', (engine) => {
  describe.each([false, true])('useResponsesApi: %s', (responses) => {
    it('generates and streams', () =>
      server.on(engine, async () => {
        const answer = await model(responses).invoke([new SystemMessage('Be candid.'), new HumanMessage('Would you trial a usage-based analytics tool?')]);
        expect(answer.text.length).toBeGreaterThan(0);
        let text = '';
        for await (const chunk of await model(responses, true).stream('First reaction to usage-based pricing?')) text += chunk.text;
        expect(text.length).toBeGreaterThan(0);
      }));

    it('gives structured output from a zod schema', () =>
      server.on(engine, async () => {
        server.script(engine, { content: ratingJson });
        const rating = await model(responses).withStructuredOutput(Rating, { name: 'rating' }).invoke('Rate our tagline "Know your buyer".');
        expect(Rating.parse(rating)).toEqual(rating);
      }));

    it('calls a single tool', () =>
      server.on(engine, async () => {
        server.script(engine, { tool_calls: [{ id: 'call_l1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
        const reply = await model(responses)
          .bindTools([weather([])], { tool_choice: 'required' })
          .invoke('What is the weather in Oslo?');
        expect(reply.tool_calls?.map((call) => call.name)).toEqual(['get_weather']);
      }));

    it.each([false, true])('runs a multi-step tool loop (streamed: %s), then continues the conversation', (stream) =>
      server.on(engine, async () => {
        server.script(
          engine,
          { tool_calls: [{ id: 'call_l2', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
          { content: 'Oslo is at 19 degrees.' },
          { content: 'A light jacket will do.' },
        );
        const asked: string[] = [];
        const llm = model(responses, stream).bindTools([weather(asked)]);
        const messages: BaseMessage[] = [new HumanMessage('What is the weather in Oslo?')];
        const final = await toolLoop(llm, messages, asked, stream);
        expect(asked).toEqual(['Oslo']);
        expect(final.text.length).toBeGreaterThan(0);
        // The previous answers (LangChain's own AIMessages, tool calls included) go back as history.
        messages.push(new HumanMessage('Do I need a jacket?'));
        // Streamed, the follow-up is consumed with .stream() too: invoke() on a `streaming: true` ChatOpenAI
        // (chat path) estimates token counts with tiktoken data it downloads from tiktoken.pages.dev, which
        // this offline test machine cannot reach; nothing in that step talks to this server.
        const next = stream ? await toolLoop(llm, messages, asked, true) : await llm.invoke(messages);
        expect(next.text.length).toBeGreaterThan(0);
      }),
    );
  });
});
