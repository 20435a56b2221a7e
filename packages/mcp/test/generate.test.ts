import { readFileSync } from 'node:fs';
import { loadBundle, type OpenApiDocument } from '@persona-api/openapi/document';
import { describe, expect, it } from 'vitest';
import { generateTools, requestFor, type ToolDefinition, toolError } from '../src/index.js';

// The generator and the call mapping on their own; the server is tested against the real API in
// apps/api/test/mcp.test.ts (both transports, the official SDK client).

const bundle = loadBundle();
const tools = generateTools(bundle);
const tool = (name: string) => tools.find((candidate) => candidate.name === name) as ToolDefinition;
const annotate = (document: OpenApiDocument, path: string, method: string, annotation: unknown) => {
  ((document.paths as Record<string, Record<string, Record<string, unknown>>>)[path]![method] as Record<string, unknown>)['x-mcp'] = annotation;
  return document;
};

describe('generateTools', () => {
  it('is what the build wrote to dist/tools.json', () => {
    expect(JSON.parse(readFileSync(new URL('../dist/tools.json', import.meta.url), 'utf8'))).toEqual(tools);
  });

  it('takes arguments from path, query and body, leaves headers and the stream switch out, and keeps only the annotated body fields', () => {
    expect(tool('analyze_news_story').operation.arguments).toEqual({ id: 'path', persona_id: 'body', workspace_id: 'body' });
    expect(tool('list_personas').operation.arguments.search).toBe('query');
    const ask = tool('ask_persona');
    expect(Object.keys(ask.inputSchema.properties as object)).toEqual([
      'model',
      'persona_id',
      'input',
      'instructions',
      'analysis_mode',
      'max_output_tokens',
      'previous_response_id',
    ]);
    expect(ask.inputSchema.required).toEqual(['model', 'input']);
    expect(Object.keys(tool('create_generation').inputSchema.properties as object)).not.toContain('stream');
    // OpenAPI keywords and examples are gone (a property may still be *named* `example`: its value is a schema).
    expect(JSON.stringify(tools)).not.toMatch(/"(discriminator|examples|x-[a-z-]+)":|"example":[^{]/);
  });

  it('names a job and the GET that polls it', () => {
    expect(tool('create_video_analysis').operation.job).toEqual({
      poll: 'getVideoAnalysis',
      status: 'status',
      done: ['completed', 'failed'],
      progress: 'progress',
      pollPath: '/video-analyses/{id}',
    });
  });

  it('refuses annotations that cannot make a sound tool', () => {
    const copy = () => structuredClone(bundle);
    const base = { name: 'get_model', title: 'Read a model', description: 'Read one model by id, with its context window.' };
    expect(() => generateTools(annotate(copy(), '/models/{id}', 'get', { ...base, name: 'Get-Model' }))).toThrow(/invalid x-mcp annotation/);
    expect(() => generateTools(annotate(copy(), '/models/{id}', 'get', { ...base, extra: true }))).toThrow(/invalid x-mcp annotation/);
    expect(() => generateTools(annotate(copy(), '/focus-groups', 'post', { ...base, body: ['question', 'nope'] }))).toThrow(/unknown body properties: nope/);
    expect(() => generateTools(annotate(copy(), '/focus-groups', 'post', { ...base, body: ['question'] }))).toThrow(
      /leaves out required body properties: persona_ids/,
    );
    expect(() =>
      generateTools(annotate(copy(), '/focus-groups', 'post', { ...base, job: { poll: 'getMeeting', status: 'status', done: ['completed'] } })),
    ).toThrow(/job.poll must be a GET/);
    expect(generateTools(annotate(copy(), '/models/{id}', 'get', base)).map(({ name }) => name)).toContain('get_model');
  });
});

describe('requestFor and toolError', () => {
  it('builds the HTTP request of a call: path arguments encoded, query and body apart, unknown body fields left for the API to refuse', () => {
    expect(requestFor(tool('analyze_news_story'), { id: 'story/1', persona_id: 'persona_saas_cfo', extra: 1 })).toEqual({
      method: 'POST',
      path: '/news/stories/story%2F1/analyze',
      query: {},
      body: { persona_id: 'persona_saas_cfo', extra: 1 },
    });
    expect(requestFor(tool('list_personas'), { search: 'CFO', limit: 5 })).toEqual({ method: 'GET', path: '/personas', query: { search: 'CFO', limit: 5 } });
  });

  it('answers a missing path argument or an unknown query argument in the envelope, without a request', () => {
    expect(requestFor(tool('get_persona'), {})).toEqual({
      status: 400,
      body: { error: { message: 'The tool get_persona needs the argument id.', type: 'invalid_request_error', code: 'missing_parameter', param: 'id' } },
    });
    expect(requestFor(tool('get_usage'), { verbose: true })).toMatchObject({ status: 400, body: { error: { code: 'unknown_parameter', param: 'verbose' } } });
  });

  it('turns an envelope into a tool error a model can read', () => {
    const envelope = { error: { message: 'No such persona: persona_x.', type: 'not_found', code: 'resource_not_found', param: 'id' } };
    expect(toolError({ status: 404, body: envelope })).toEqual({
      isError: true,
      content: [
        { type: 'text', text: 'No such persona: persona_x. (resource_not_found, param id; HTTP 404)' },
        { type: 'text', text: JSON.stringify({ status: 404, ...envelope }) },
      ],
    });
  });
});
