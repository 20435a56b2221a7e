import { describe, expect, it } from 'vitest';
import {
  basePersonas,
  createOfflineEngine,
  enginePersonaFromBase,
  validateAgainst,
  type EngineStreamEvent,
  type EngineTool,
  type GenerateRequest,
} from '../src/index.js';
import { toolScore } from '../src/offline/tools.js';

const luca = enginePersonaFromBase(basePersonas.find((entry) => entry.id === 'persona_restaurant_owner')!);
const weather: EngineTool = {
  name: 'get_weather',
  description: 'Get the current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};
const menu: EngineTool = {
  name: 'search_menu',
  description: 'Search the restaurant menu for dishes and their prices',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 200 },
      max_results: { type: 'integer', minimum: 1, maximum: 10 },
      filters: { type: 'object', properties: { vegetarian: { type: 'boolean' } }, required: ['vegetarian'] },
    },
    required: ['query', 'max_results', 'filters'],
    additionalProperties: false,
  },
};
const tools = [weather, menu];
const request = (content: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  persona: luca,
  messages: [{ role: 'user', content }],
  tools,
  ...extra,
});
const engine = createOfflineEngine();

function expectValidArguments(call: { name: string; arguments: string }) {
  const tool = tools.find((candidate) => candidate.name === call.name)!;
  expect(validateAgainst(tool.parameters!, JSON.parse(call.arguments)).valid).toBe(true);
}

describe('offline tool selection', () => {
  it('scores by words shared with the tool name (2 each) and description (1 each)', () => {
    expect(toolScore(weather, 'What is the weather in Chicago?')).toBe(2);
    expect(toolScore(menu, 'Which dishes are on the menu, and what are their prices?')).toBe(2 + 2);
    expect(toolScore(weather, 'I love your lasagna')).toBe(0);
  });

  it('auto: calls the tool the input clearly asks for, with valid arguments taken from the input', async () => {
    const result = await engine.generate(request('What will the weather be in Chicago tonight?'));
    expect(result.finish_reason).toBe('tool_calls');
    expect(result.text).toBe('');
    expect(result.tool_calls).toHaveLength(1);
    const [call] = result.tool_calls;
    expect(call!.name).toBe('get_weather');
    expect(call!.call_id).toMatch(/^call_[A-Za-z0-9]+$/);
    expect(JSON.parse(call!.arguments).city).toBe('Chicago');
    expectValidArguments(call!);
  });

  it('auto: answers in text when no tool fits', async () => {
    const result = await engine.generate(request('I love your lasagna, it reminds me of home.'));
    expect(result.tool_calls).toEqual([]);
    expect(result.finish_reason).toBe('stop');
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('none: never calls, even when a tool fits', async () => {
    const result = await engine.generate(request('What will the weather be in Chicago tonight?', { tool_choice: 'none' }));
    expect(result.tool_calls).toEqual([]);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('required: always calls the best-fitting tool', async () => {
    const unrelated = await engine.generate(request('Good morning!', { tool_choice: 'required' }));
    expect(unrelated.tool_calls).toHaveLength(1);
    expectValidArguments(unrelated.tool_calls[0]!);
    const fitting = await engine.generate(request('Search the menu for vegetarian dishes', { tool_choice: 'required' }));
    expect(fitting.tool_calls[0]!.name).toBe('search_menu');
    const args = JSON.parse(fitting.tool_calls[0]!.arguments);
    expect(args.query).toMatch(/vegetarian/);
    expectValidArguments(fitting.tool_calls[0]!);
  });

  it('a named function: calls exactly that one', async () => {
    const result = await engine.generate(request('What will the weather be in Chicago tonight?', { tool_choice: { name: 'search_menu' } }));
    expect(result.tool_calls.map((call) => call.name)).toEqual(['search_menu']);
    expectValidArguments(result.tool_calls[0]!);
  });

  it('after a tool result: answers in text that uses the output', async () => {
    const result = await engine.generate({
      persona: luca,
      tools,
      messages: [
        { role: 'user', content: 'What will the weather be in Chicago tonight?' },
        { role: 'assistant', content: null, tool_calls: [{ call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Chicago","unit":"fahrenheit"}' }] },
        { role: 'tool', call_id: 'call_1', content: '{"temperature": 28, "conditions": "heavy snow"}' },
      ],
    });
    expect(result.tool_calls).toEqual([]);
    expect(result.text).toContain('28');
    expect(result.text).toContain('heavy snow');
    expect(result.text).toMatch(/weather/);
  });

  it('streams a call as start, argument pieces and done', async () => {
    const events: EngineStreamEvent[] = [];
    for await (const event of engine.stream(request('Search the menu for vegetarian dishes', { tool_choice: 'required' }))) events.push(event);
    const start = events.find((event) => event.type === 'tool_call_start');
    const pieces = events.filter((event) => event.type === 'tool_call_arguments_delta').map((event) => (event as { delta: string }).delta);
    const done = events.find((event) => event.type === 'tool_call_done') as { arguments: string; call_id: string } | undefined;
    expect(start).toMatchObject({ name: 'search_menu', index: 0 });
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(done!.arguments);
    expect(events.at(-1)).toMatchObject({ type: 'done', result: { finish_reason: 'tool_calls' } });
  });

  it('rejects a forced function that is not among the tools', async () => {
    await expect(engine.generate(request('hi', { tool_choice: { name: 'book_table' } }))).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
