// The samples of the "Use it from the openai SDK, the AI SDK and LangChain" docs page and the README,
// type-checked with the server's tests (`pnpm typecheck`) and run against a listening server by
// sdk-samples.test.ts. The docs build copies each `#region` body into the page (apps/docs/guides/libraries.md).
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, user } from '@openai/agents';
import { generateText, isStepCount, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';

export async function openaiSample(baseURL: string, apiKey: string): Promise<string> {
  // #region openai
  const client = new OpenAI({ baseURL, apiKey, defaultHeaders: { 'Persona-Id': 'persona_saas_cfo' } });
  const response = await client.responses.create({ model: 'service-1', input: 'Would you pay $18 per seat for forecasting?' });
  console.log(response.output_text);
  // A follow-up: the server keeps the conversation, so send only the new message.
  const followUp = await client.responses.create({ model: 'service-1', input: 'What did I ask you?', previous_response_id: response.id });
  console.log(followUp.output_text);
  // #endregion openai
  return followUp.output_text;
}

export async function aiSdkSample(baseURL: string, apiKey: string): Promise<string> {
  // #region ai
  const persona = createOpenAI({ baseURL, apiKey, headers: { 'Persona-Id': 'persona_saas_cfo' } });
  const { text } = await generateText({
    model: persona('service-1'), // the Responses API; persona.chat('service-1') for /chat/completions
    prompt: 'What does our plan cost for 240 seats?',
    tools: {
      get_price_quote: tool({
        description: 'Returns a price quote for a number of seats.',
        inputSchema: z.object({ seats: z.number().int() }),
        execute: async ({ seats }) => ({ total_usd: seats * 192 }),
      }),
    },
    stopWhen: isStepCount(3),
  });
  console.log(text);
  // #endregion ai
  return text;
}

export async function langchainSample(baseURL: string, apiKey: string): Promise<string> {
  // #region langchain
  const model = new ChatOpenAI({
    model: 'service-1',
    apiKey,
    useResponsesApi: true, // or leave it out for /chat/completions
    configuration: { baseURL, defaultHeaders: { 'Persona-Id': 'persona_saas_cfo' } },
  });
  const reply = await model.invoke('Would you pay $18 per seat for forecasting?');
  console.log(reply.text);
  // #endregion langchain
  return reply.text;
}

export async function agentsSample(baseURL: string, apiKey: string): Promise<string> {
  // #region agents
  setTracingDisabled(true); // traces go to OpenAI unless disabled
  const client = new OpenAI({ baseURL, apiKey, defaultHeaders: { 'Persona-Id': 'persona_saas_cfo' } });
  const agent = new Agent({
    name: 'CFO',
    model: new OpenAIChatCompletionsModel(client, 'service-1'), // or new OpenAIResponsesModel(client, 'service-1')
  });
  const first = await run(agent, 'Would you pay $18 per seat for forecasting?');
  const next = await run(agent, [...first.history, user('And at $15?')]); // the conversation goes on from its history
  console.log(next.finalOutput);
  // #endregion agents
  return String(next.finalOutput);
}
