import type { AddressInfo } from 'node:net';
import { createClient, ApiError as PersonaApiError } from '@persona-api/client';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf } from './support/ai.js';
import { Harness, type Tenant } from './support/harness.js';

// Real clients against a real listening server on 127.0.0.1 (offline engine). The
// official `openai` npm package, unmodified, with base URL …/api/v1 and `persona_id` as an extra body
// field, streaming included; and this repository's `@persona-api/client`.

let h: Harness;
let t: Tenant;
let baseURL: string;
let openai: OpenAI;

beforeAll(async () => {
  h = await Harness.create();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  baseURL = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1`;
  t = await h.tenant({ credits: 100_000 });
  openai = new OpenAI({ apiKey: t.key, baseURL, maxRetries: 0 });
});
afterAll(() => h.close());

const PERSONA = 'persona_marketing_vp_scaleup';
// `persona_id` is not in the SDK's types; the SDK sends unknown body fields as they are.
const withPersona = <T extends object>(params: T): T => ({ ...params, persona_id: PERSONA }) as T;

describe('the official openai SDK', () => {
  it('creates a response (client.responses.create) and reads output_text and usage', async () => {
    const response = await openai.responses.create(
      withPersona({ model: 'service-1', input: 'Would you trial a usage-based analytics tool?', instructions: 'Be candid.' }),
    );
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.output_text.length).toBeGreaterThan(20);
    expect((response as unknown as { persona_id: string }).persona_id).toBe(PERSONA);
    expect((response.usage as unknown as { credits_used: number }).credits_used).toBeGreaterThan(0);
  });

  it('streams with client.responses.stream() and builds the same final response', async () => {
    const before = await balanceOf(h, t.accountId);
    const stream = openai.responses.stream(withPersona({ model: 'service-1', input: 'First reaction to usage-based pricing?' }));
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(deltas.join(''));
    expect(deltas.length).toBeGreaterThan(3);
    expect(await balanceOf(h, t.accountId)).toBe(before - (final.usage as unknown as { credits_used: number }).credits_used);
  });

  it('iterates create({stream: true}) events, in order, ending with response.completed', async () => {
    const stream = await openai.responses.create(withPersona({ model: 'service-1', input: 'What do you think of our onboarding?', stream: true as const }));
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.at(-1)).toBe('response.completed');
  });

  it('runs a function-tool round trip and structured output', async () => {
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'get_campaign_stats',
        description: 'Returns the statistics of a marketing campaign.',
        parameters: { type: 'object', properties: { campaign: { type: 'string' } }, required: ['campaign'], additionalProperties: false },
        strict: true,
      },
    ];
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Pull the campaign stats for the spring launch.' }];
    const first = await openai.responses.create(withPersona({ model: 'service-1', input, tools, tool_choice: 'required' as const }));
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    expect(call?.name).toBe('get_campaign_stats');
    const second = await openai.responses.create(
      withPersona({
        model: 'service-1',
        input: [
          ...input,
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: 'function_call_output' as const, call_id: call!.call_id, output: '{"clicks":5120,"signups":312}' },
        ],
        tools,
      }),
    );
    expect(second.output_text).toMatch(/5,?120|312/);

    const structured = await openai.responses.create(
      withPersona({
        model: 'service-1',
        input: 'Rate our tagline.',
        text: {
          format: {
            type: 'json_schema' as const,
            name: 'rating',
            schema: { type: 'object', properties: { score: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['score'], additionalProperties: false },
          },
        },
      }),
    );
    expect(JSON.parse(structured.output_text).score).toBeGreaterThanOrEqual(1);
  });

  it('creates chat completions, streamed and not (client.chat.completions.create)', async () => {
    const completion = await openai.chat.completions.create(
      withPersona({ model: 'service-1', messages: [{ role: 'user' as const, content: 'Would you switch CRMs this quarter?' }] }),
    );
    expect(completion.id).toMatch(/^chatcmpl_/);
    expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(10);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);

    const stream = await openai.chat.completions.create(
      withPersona({
        model: 'service-1',
        messages: [{ role: 'user' as const, content: 'Would you switch CRMs this quarter?' }],
        stream: true as const,
        stream_options: { include_usage: true },
      }),
    );
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(completion.choices[0]?.message.content);
    expect(usage?.total_tokens).toBe(completion.usage?.total_tokens);
  });

  it('lists models and raises the error envelope as an APIError', async () => {
    const models = [];
    for await (const model of openai.models.list()) models.push(model.id);
    expect(models).toEqual(['service-1']);
    const error = await openai.responses
      .create({ model: 'service-1', input: 'Hi', persona_id: 'persona_unknown' } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('resource_not_found');
  });
});

describe('@persona-api/client', () => {
  const client = () => createClient({ apiKey: t.key, baseUrl: baseURL, maxRetries: 0 });

  it('creates a response and streams one (stream(), finalResponse())', async () => {
    const { data } = await client().POST('/responses', { body: { model: 'service-1', persona_id: PERSONA, input: 'Is a free trial enough for you?' } });
    expect(data.status).toBe('completed');

    const stream = await client().stream('/responses', { body: { model: 'service-1', persona_id: PERSONA, input: 'Is a free trial enough for you?' } });
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    // Same request, same deterministic text.
    expect(final.output).toHaveLength(1);
    expect(final.output[0]?.type === 'message' && final.output[0].content[0]?.text).toBe(data.output[0]?.type === 'message' && data.output[0].content[0]?.text);
  });

  it('streams a chat completion into a chat.completion, and pages the personas', async () => {
    const stream = await client().stream('/chat/completions', {
      body: { model: 'service-1', persona_id: PERSONA, messages: [{ role: 'user', content: 'Hi' }] },
    });
    const completion = await stream.finalResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.usage.credits_used).toBeGreaterThan(0);
    const personas = await client()
      .paginate('/personas', { params: { query: { limit: 5 } } })
      .toArray(100);
    expect(personas.length).toBeGreaterThanOrEqual(12);
    const error = await client()
      .GET('/personas/{id}', { params: { path: { id: 'cp_missing' } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersonaApiError);
    expect((error as PersonaApiError).code).toBe('resource_not_found');
  });
});
