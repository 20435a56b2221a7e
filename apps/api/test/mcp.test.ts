import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { createOfflineEngine } from '@persona-api/engine';
import { createPersonaMcpServer, generateTools, type ToolDefinition } from '@persona-api/mcp';
import { createContractAjv } from '@persona-api/openapi/ajv';
import { deref, listOperations, loadBundle, type OpenApiDocument } from '@persona-api/openapi/document';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectCaller, MCP_PATH } from '../src/app/mcp.js';
import type { DatabaseHandle } from '../src/db/client.js';
import type { JobRuntime } from '../src/jobs/queue.js';
import { brandVoiceJobs } from '../src/resources/brand-voices/job.js';
import { videoAnalysisJobs } from '../src/resources/video-analyses/jobs.js';
import { botJobs } from '../src/resources/meetings/bot-sync.js';
import { meetingJobs, type MeetingJobDeps } from '../src/resources/meetings/jobs.js';
import { simulatorProvider } from '../src/resources/meetings/simulator.js';
import { loadBundledNewsIfEmpty } from '../src/resources/news/feeds.js';
import { MemoryStorage } from './resources/files/memory-storage.js';
import { balanceOf } from './support/ai.js';
import { recordExercised } from './support/contract.js';
import { openTestDatabase } from './support/database.js';
import { Harness, TestClock, type Tenant } from './support/harness.js';
import { openTestJobQueue } from './support/jobs.js';
import { testServices } from './support/services.js';
import { storeFile } from './support/uploads.js';
import { makeVideo, storeUpload } from './support/videos.js';

// The MCP server (packages/mcp) against the real server: the official SDK client over Streamable HTTP (mounted
// at /mcp) and over stdio (`pnpm mcp`, calling the listening server with @persona-api/client).

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const bundle = loadBundle();
const contractAjv = createContractAjv(bundle, { strict: false });
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const storage = new MemoryStorage();
const clock = new TestClock();
const fixture = (name: string) => readFileSync(new URL(`./resources/meetings/fixtures/${name}`, import.meta.url));

let database: DatabaseHandle;
let queue: JobRuntime;
let h: Harness;
let t: Tenant;
let baseUrl: string;
let client: Client;
let scratch: string;

/** The curated set the issue asks for (openapi/DECISIONS.md, "MCP server"). */
const CURATED = [
  'list_personas',
  'get_persona',
  'create_persona',
  'ask_persona',
  'run_focus_group',
  'list_focus_groups',
  'get_focus_group',
  'list_news_stories',
  'analyze_news_story',
  'create_news_digest',
  'get_news_digest',
  'list_workspaces',
  'list_meetings',
  'create_meeting',
  'get_meeting',
  'get_meeting_transcript',
  'get_meeting_analysis',
  'list_meeting_schemas',
  'list_meeting_schema_results',
  'run_meeting_schema',
  'list_video_analyses',
  'create_video_analysis',
  'get_video_analysis',
  'list_brand_voices',
  'create_brand_voice',
  'get_brand_voice',
  'list_generation_apps',
  'create_generation',
  'get_generation',
  'get_usage',
];

beforeAll(async () => {
  database = await openTestDatabase();
  const engine = createOfflineEngine();
  const deps: MeetingJobDeps = { db: database.db, storage, clock, engine, bot: simulatorProvider(clock), jobs: undefined as unknown as MeetingJobDeps['jobs'] };
  const services = testServices(database.db, { engine, clock, storage, files: await Harness.fileSettings(database) });
  queue = await openTestJobQueue(database, [...meetingJobs(deps), ...botJobs(deps), ...brandVoiceJobs(services), ...videoAnalysisJobs(services)]);
  deps.jobs = queue;
  services.jobs = queue;
  h = await Harness.create({ database, clock, engine, services: { jobs: queue, storage }, mcp: { jobPollIntervalMs: 20 } });
  t = await h.tenant({ credits: 20_000 });
  await loadBundledNewsIfEmpty(h.db, engine, clock.now());
  baseUrl = (await h.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  client = await connectHttp(t.key);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
  await queue?.stop({ timeoutMs: 1_000 });
  await database?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function connectHttp(key: string): Promise<Client> {
  const connected = new Client({ name: 'mcp-test', version: '1.0.0' });
  await connected.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}${MCP_PATH}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  await connected.listTools(); // caches the output schemas, so every callTool is checked against them
  return connected;
}

/** An uploaded file of the tenant's workspace, as the files flow leaves it (a row and its bytes). */
const uploaded = (tenant: Tenant, name: string, type: string, bytes: Buffer) =>
  storeFile(database.db, storage, { workspaceId: tenant.workspaceId, name, type, content: bytes, now: clock.now() });

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const operationByTool = new Map(
  listOperations(bundle)
    .filter(({ operation }) => (operation as Record<string, unknown>)['x-mcp'])
    .map((operation) => [((operation.operation as Record<string, unknown>)['x-mcp'] as { name: string }).name, operation]),
);

/** A tool's structured result, checked against the contract's own 200 schema (beside the SDK's check against the tool's outputSchema). */
function structured(name: string, result: CallToolResult): any {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const operation = operationByTool.get(name)!;
  const validate = contractAjv.validatorAt(`#/paths/${escapePointer(operation.path)}/${operation.method}/responses/200/content/application~1json/schema`);
  expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  recordExercised(operation.operationId, operation.method.toUpperCase(), 200);
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

const called = new Set<string>();
async function callOk(name: string, args: Record<string, unknown> = {}, on = client): Promise<any> {
  called.add(name);
  return structured(name, (await on.callTool({ name, arguments: args })) as CallToolResult);
}

/** A tool error: the envelope's message and code in the text, the envelope itself after it. */
async function callFailing(name: string, args: Record<string, unknown>, on = client) {
  called.add(name);
  const result = (await on.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [line, envelope] = result.content as { text: string }[];
  const parsed = JSON.parse(envelope!.text) as { status: number; error: { message: string; code: string; param: string | null; type: string } };
  expect(line!.text).toContain(parsed.error.message);
  expect(line!.text).toContain(parsed.error.code);
  return parsed;
}

describe('tools generated from the contract', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = (await client.listTools()).tools;
  });

  it('lists the curated tools, with hints from the method', () => {
    expect(tools.map(({ name }) => name).sort()).toEqual([...CURATED].sort());
    for (const tool of tools) {
      const { method } = operationByTool.get(tool.name)!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: method === 'get', destructiveHint: method === 'delete', openWorldHint: false });
      expect(tool.description!.length).toBeGreaterThan(40);
    }
  });

  it('has input and output schemas that are valid JSON Schema 2020-12 and match the operation', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    for (const tool of tools) {
      const operation = operationByTool.get(tool.name)!;
      for (const schema of [tool.inputSchema, tool.outputSchema!]) {
        expect(ajv.validateSchema(schema), `${tool.name}: ${ajv.errorsText()}`).toBe(true);
        expect(() => ajv.compile(schema), tool.name).not.toThrow();
      }
      // The arguments are the operation's path and query parameters and its body's properties (or the
      // annotation's pick of them), without the stream switch; required exactly where the contract requires.
      const annotation = (operation.operation as Record<string, unknown>)['x-mcp'] as { body?: string[] };
      const parameters = operation.parameters.filter((parameter) => parameter.in === 'path' || parameter.in === 'query');
      const bodySchema = operation.requestBody ? (deref(bundle, operation.requestBody.content!['application/json']!.schema) as any) : undefined;
      const bodyNames = (annotation.body ?? Object.keys(bodySchema?.properties ?? {})).filter((name) => name !== 'stream');
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), tool.name).toEqual([...parameters.map(({ name }) => name), ...bodyNames].sort());
      const required = [...parameters.filter((parameter) => parameter.required).map(({ name }) => name), ...(bodySchema?.required ?? [])];
      expect([...(tool.inputSchema.required ?? [])].sort(), tool.name).toEqual(required.sort());
      // The output schema takes the contract's own examples of the success response, and refuses what it refuses.
      const validateOutput = ajv.compile(tool.outputSchema!);
      const media = operation.responses['200']!.content!['application/json']!;
      for (const example of Object.values(media.examples ?? {})) {
        const value = (deref(bundle, example) as { value: unknown }).value;
        expect(validateOutput(value), `${tool.name}: ${ajv.errorsText(validateOutput.errors)}`).toBe(true);
      }
      expect(validateOutput({ unexpected: true }), tool.name).toBe(false);
    }
  });
});

describe('every tool on the offline engine', () => {
  const ids: Record<string, string> = {};

  it('personas, answers and focus groups', async () => {
    const workspaces = await callOk('list_workspaces');
    expect(workspaces.data.map((workspace: { id: string }) => workspace.id)).toContain(t.workspaceId);
    const personas = await callOk('list_personas', { search: 'CFO' });
    expect(personas.data.map((persona: { id: string }) => persona.id)).toContain('persona_saas_cfo');
    expect((await callOk('get_persona', { id: 'persona_saas_cfo' })).name).toBeTruthy();
    const custom = await callOk('create_persona', {
      description: 'Head of operations at a 40-person logistics start-up who buys software only after a two-week trial.',
      workspace_id: t.workspaceId,
    });
    expect(custom).toMatchObject({ object: 'custom_persona', workspace_id: t.workspaceId });
    ids.custom = custom.id;

    const answer = await callOk('ask_persona', { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Would you pay $18 per seat for forecasting?' });
    expect(answer).toMatchObject({ object: 'response', status: 'completed', persona_id: 'persona_saas_cfo' });
    expect(answer.output[0].content[0].text.length).toBeGreaterThan(20);
    // A follow-up in the same conversation, by the earlier answer's id.
    const opening = await callOk('ask_persona', { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Our pilot budget is 20,000 dollars.' });
    const followUp = await callOk('ask_persona', {
      model: 'service-1',
      persona_id: 'persona_saas_cfo',
      input: 'What is my pilot budget?',
      previous_response_id: opening.id,
    });
    expect(followUp.output[0].content[0].text).toBe('You said: “Our pilot budget is 20,000 dollars.”');

    const group = await callOk('run_focus_group', {
      question: 'Which tagline works best: "Close the books in a day" or "Finance without spreadsheets"?',
      persona_ids: ['persona_saas_cfo', custom.id],
    });
    expect(group).toMatchObject({ status: 'completed', persona_ids: ['persona_saas_cfo', custom.id] });
    expect(group.answers).toHaveLength(2);
    expect(group.summary.key_themes.length).toBeGreaterThan(0);
    expect((await callOk('get_focus_group', { id: group.id })).answers).toEqual(group.answers);
    expect((await callOk('list_focus_groups', { limit: 5 })).data[0].id).toBe(group.id);
  });

  it('news, generations and usage', async () => {
    const stories = await callOk('list_news_stories', { limit: 3 });
    const story = stories.data[0];
    expect(story.id).toMatch(/^story_/);
    const analysis = await callOk('analyze_news_story', { id: story.id, persona_id: 'persona_saas_cfo' });
    expect(analysis).toMatchObject({ story_id: story.id, persona: { id: 'persona_saas_cfo' } });
    const digest = await callOk('create_news_digest', { persona_id: 'persona_saas_cfo', story_ids: [story.id] });
    expect((await callOk('get_news_digest', { id: digest.id })).items).toEqual(digest.items);

    const apps = await callOk('list_generation_apps', { search: 'LinkedIn' });
    expect(apps.data.map((app: { id: string }) => app.id)).toContain('app_linkedin_post');
    const generation = await callOk('create_generation', {
      app_id: 'app_linkedin_post',
      input_data: { topic: 'Closing the books faster', post_length: 'short' },
    });
    expect(generation).toMatchObject({ object: 'generation', app: { id: 'app_linkedin_post' } });
    expect(generation.output.length).toBeGreaterThan(20);
    expect((await callOk('get_generation', { id: generation.id })).output).toEqual(generation.output);

    const usage = await callOk('get_usage');
    expect(usage.credits.used).toBeGreaterThan(0);
  });

  it('meetings: an import reports progress until done, then its transcript, analysis and scorecards', async () => {
    const transcript = await uploaded(t, 'cs-renewal.vtt', 'text/vtt', fixture('cs-renewal.vtt'));
    const progress: { progress: number; message?: string }[] = [];
    let firstProgress!: () => void;
    const started = new Promise<void>((resolve) => {
      firstProgress = resolve;
    });
    called.add('create_meeting');
    const running = client.callTool(
      { name: 'create_meeting', arguments: { workspace_id: t.workspaceId, transcript_file_id: transcript, title: 'QBR' } },
      undefined,
      {
        onprogress: (notification) => {
          progress.push(notification);
          firstProgress();
        },
      },
    );
    await started;
    await queue.drain();
    const meeting = structured('create_meeting', (await running) as CallToolResult);
    expect(meeting).toMatchObject({ status: 'done', analysis_status: 'completed', source: 'import' });
    expect(progress[0]!.message).toContain('pending');
    expect(progress.at(-1)!.message).toContain('done');
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    ids.meeting = meeting.id;

    expect((await callOk('get_meeting', { id: meeting.id })).status).toBe('done');
    expect((await callOk('list_meetings', { workspace_id: t.workspaceId })).data[0].id).toBe(meeting.id);
    expect((await callOk('get_meeting_transcript', { id: meeting.id })).segments.length).toBeGreaterThan(3);
    const analysis = await callOk('get_meeting_analysis', { id: meeting.id });
    expect(analysis.summary.length).toBeGreaterThan(20);
    const schemas = await callOk('list_meeting_schemas', { limit: 20 });
    const schemaId = schemas.data[0].id;
    const scored = await callOk('run_meeting_schema', { id: meeting.id, schema_id: schemaId });
    expect(scored.schema_id).toBe(schemaId);
    const results = await callOk('list_meeting_schema_results', { id: meeting.id });
    expect(results.data.map((result: { schema_id: string }) => result.schema_id)).toContain(schemaId);
  });

  it('a job tool without a progress token answers at once with the job to poll', async () => {
    const transcript = await uploaded(t, 'discovery.srt', 'application/x-subrip', fixture('discovery.srt'));
    const meeting = await callOk('create_meeting', { workspace_id: t.workspaceId, transcript_file_id: transcript });
    expect(meeting.status).toBe('pending');
    await queue.drain();
    expect((await callOk('get_meeting', { id: meeting.id })).status).toBe('done');
  });

  it('brand voices learn from a document; a video analysis reports its percentage', async () => {
    const words = 'We write plainly and warmly. Our customers are busy finance teams, so every sentence earns its place. '.repeat(4);
    const doc = await uploaded(t, 'voice.md', 'text/markdown', Buffer.from(`# How we sound\n\n${words}\n`));
    const voice = await callOk('create_brand_voice', {
      label: 'House voice',
      usage_context: 'Website copy.',
      workspace_id: t.workspaceId,
      sources: { file_ids: [doc] },
    });
    expect(voice.status).toBe('pending');
    await queue.drain();
    expect((await callOk('get_brand_voice', { id: voice.id })).status).toBe('completed');
    expect((await callOk('list_brand_voices', {})).data[0].id).toBe(voice.id);

    // A 4-second clip, analysed while the tool reports the job's own percentage.
    expect((await callOk('list_video_analyses', {})).data).toEqual([]);
    scratch = await mkdtemp(join(tmpdir(), 'mcp-test-'));
    const clip = await makeVideo(join(scratch, 'spot.mp4'), [{ seconds: 4, color: 'navy', text: 'STRIDE' }], null, { size: '160x90', rate: 5 });
    const fileId = await storeUpload(database.db, storage, t.workspaceId, clip);
    const progress: { progress: number; total?: number }[] = [];
    let firstProgress!: () => void;
    const started = new Promise<void>((resolve) => {
      firstProgress = resolve;
    });
    const running = client.callTool(
      { name: 'create_video_analysis', arguments: { file_id: fileId, goal: 'Make people remember the brand.', chunk_duration: 5 } },
      undefined,
      {
        onprogress: (notification) => {
          progress.push(notification);
          firstProgress();
        },
      },
    );
    await started;
    await queue.drain();
    const analysis = structured('create_video_analysis', (await running) as CallToolResult);
    expect(analysis).toMatchObject({ status: 'completed', progress: 100 });
    expect(analysis.result.chunks.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ progress: 100, total: 100 });
    expect((await callOk('get_video_analysis', { id: analysis.id })).result).toEqual(analysis.result);
    expect((await callOk('list_video_analyses', {})).data[0].id).toBe(analysis.id);
    const refused = await callFailing('create_video_analysis', { file_id: 'file_doesnotexist0001', workspace_id: t.workspaceId });
    expect(refused).toMatchObject({ status: 404, error: { code: 'resource_not_found', param: 'file_id' } });
    expect((await callFailing('get_video_analysis', { id: 'va_doesnotexist0001' })).error.code).toBe('resource_not_found');
  });

  it('called every tool', () => {
    expect([...called].sort()).toEqual([...CURATED].sort());
  });
});

describe('errors, authentication and credits', () => {
  it('answers API errors as tool errors with the envelope, never as protocol failures', async () => {
    expect(await callFailing('get_persona', { id: 'persona_nobody' })).toMatchObject({ status: 404, error: { code: 'resource_not_found', param: 'id' } });
    expect(await callFailing('run_focus_group', { question: 'Hi there?', persona_ids: ['persona_saas_cfo'] })).toMatchObject({
      status: 400,
      error: { code: 'invalid_parameter', param: 'persona_ids' },
    });
    // An argument the tool does not declare reaches the API, which refuses it as it refuses any unknown body field.
    expect(await callFailing('ask_persona', { model: 'service-1', input: 'Hi', mood: 'happy' })).toMatchObject({
      status: 400,
      error: { code: 'unknown_parameter', param: 'mood' },
    });
    expect(await callFailing('get_usage', { verbose: true })).toMatchObject({ status: 400, error: { code: 'unknown_parameter', param: 'verbose' } });
    const poor = await h.tenant({ credits: 0 });
    const poorClient = await connectHttp(poor.key);
    try {
      expect(await callFailing('ask_persona', { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Hello' }, poorClient)).toMatchObject({
        status: 402,
        error: { code: 'insufficient_credits' },
      });
    } finally {
      await poorClient.close();
    }
  });

  it('refuses a request without a valid key (401 in the envelope) and an SDK client cannot connect', async () => {
    for (const authorization of [undefined, 'Bearer svc_live_notavalidkeynotavalidkeynotavalidkey12', 'Basic abc']) {
      const response = await fetch(`${baseUrl}${MCP_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    }
    // Stateless: no standalone event stream to open (GET) and no session to end (DELETE).
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${baseUrl}${MCP_PATH}`, { method, headers: { authorization: `Bearer ${t.key}`, accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
    }
    const anonymous = new Client({ name: 'anonymous', version: '1.0.0' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${MCP_PATH}`)))).rejects.toThrow(/invalid_api_key/);
  });

  it("counts a tool call in the key's API rate limit, and protocol messages in a window of their own", async () => {
    const limited = await h.tenant({ tier: 'starter' }); // 60 requests per minute; the test clock stands still
    const limitedClient = await connectHttp(limited.key);
    try {
      await callOk('get_usage', {}, limitedClient);
      for (let i = 0; i < 58; i++) expect((await h.get('/models', limited.key)).status).toBe(200);
      expect((await h.get('/models', limited.key)).headers['ratelimit-remaining']).toBe('0');
      expect(await callFailing('get_usage', {}, limitedClient)).toMatchObject({ status: 429, error: { code: 'rate_limit_exceeded' } });
      expect((await h.get('/models', limited.key)).status).toBe(429);
      // The MCP request itself was not refused: listing tools still works, calling them does not.
      expect((await limitedClient.listTools()).tools).toHaveLength(CURATED.length);
    } finally {
      await limitedClient.close();
    }
  });

  it('charges a tool call exactly as the same HTTP call', async () => {
    const payer = await h.tenant({ credits: 1_000 });
    const payerClient = await connectHttp(payer.key);
    const input = {
      model: 'service-1',
      persona_id: 'persona_saas_cfo',
      input: 'What would make you switch forecasting tools this quarter?',
      analysis_mode: true,
    };
    try {
      const before = await balanceOf(h, payer.accountId);
      const viaMcp = await callOk('ask_persona', input, payerClient);
      const afterMcp = await balanceOf(h, payer.accountId);
      const viaHttp = (await h.post('/responses', payer.key, input)).body;
      const afterHttp = await balanceOf(h, payer.accountId);
      expect(viaMcp.usage).toEqual(viaHttp.usage);
      expect(viaMcp.usage.credits_used).toBeGreaterThan(5);
      expect(before - afterMcp).toBe(viaMcp.usage.credits_used);
      expect(afterMcp - afterHttp).toBe(viaHttp.usage.credits_used);
    } finally {
      await payerClient.close();
    }
  });
});

describe('personas as resources and prompts', () => {
  it('lists the catalogue and the custom personas as resources and reads one', async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      uris.push(...page.resources.map(({ uri }) => uri));
      cursor = page.nextCursor;
    } while (cursor);
    const custom = (await h.get('/personas?is_custom=true', t.key)).body.data[0].id;
    expect(uris).toContain('persona://persona_saas_cfo');
    expect(uris).toContain(`persona://${custom}`);
    const read = await client.readResource({ uri: `persona://${custom}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: custom, object: 'custom_persona' });
    expect((await client.listResourceTemplates()).resourceTemplates[0]!.uriTemplate).toBe('persona://{id}');
    await expect(client.readResource({ uri: 'persona://persona_nobody' })).rejects.toThrow(/resource_not_found/);
  });

  it('offers each persona as a prompt template taking a question', async () => {
    const prompts = (await client.listPrompts()).prompts;
    const cfo = prompts.find(({ name }) => name === 'persona_saas_cfo');
    expect(cfo?.arguments).toEqual([expect.objectContaining({ name: 'question', required: true })]);
    const prompt = await client.getPrompt({ name: 'persona_saas_cfo', arguments: { question: 'Is $18 per seat fair?' } });
    expect(prompt.messages[0]!.content).toMatchObject({ type: 'resource', resource: { uri: 'persona://persona_saas_cfo' } });
    expect((prompt.messages[1]!.content as { text: string }).text).toContain('Is $18 per seat fair?');
  });
});

describe('over stdio: pnpm mcp', () => {
  it('lists the same tools and answers, runs a focus group and reads a meeting analysis through the HTTP API', async () => {
    const stdio = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: 'pnpm',
      args: ['--silent', 'mcp'],
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PERSONA_API_KEY: t.key, PERSONA_API_BASE_URL: `${baseUrl}/api/v1` },
      stderr: 'pipe',
    });
    await stdio.connect(transport);
    try {
      expect((await stdio.listTools()).tools.map(({ name }) => name).sort()).toEqual([...CURATED].sort());
      const answer = await callOk('ask_persona', { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Is a yearly plan worth it?' }, stdio);
      expect(answer.status).toBe('completed');
      const group = await callOk('run_focus_group', { question: 'Would you try this?', persona_ids: ['persona_saas_cfo', 'persona_restaurant_owner'] }, stdio);
      expect(group.answers).toHaveLength(2);
      expect((await callOk('get_meeting_analysis', { id: (await h.get('/meetings', t.key)).body.data.at(-1).id }, stdio)).summary).toBeTruthy();
      expect(await callFailing('get_meeting', { id: 'mtg_doesnotexist0001' }, stdio)).toMatchObject({ status: 404, error: { code: 'resource_not_found' } });
      expect((await stdio.listPrompts()).prompts.some(({ name }) => name === 'persona_saas_cfo')).toBe(true);
    } finally {
      await stdio.close();
    }
  });

  it('refuses to start without a key', async () => {
    // The entry point `pnpm mcp` runs, started directly (pnpm itself was exercised above).
    const child = spawn(process.execPath, [join(repoRoot, 'packages', 'mcp', 'dist', 'stdio.js')], { env: { PATH: process.env.PATH ?? '' } });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('PERSONA_API_KEY');
  });
});

/** Annotates GET /models/{id} of a copy of the bundle, as a contributor would in openapi/paths/models_{id}.yaml. */
const annotate = (document: OpenApiDocument, annotation: object) => {
  (document.paths!['/models/{id}']!.get as Record<string, unknown>)['x-mcp'] = annotation;
};

describe('a new annotation in the contract', () => {
  it('becomes a tool when the bundle is regenerated', async () => {
    const modified = structuredClone(bundle);
    expect(generateTools(modified).some(({ operation }) => operation.operationId === 'getModel')).toBe(false);
    annotate(modified, {
      name: 'get_model',
      title: 'Read a model',
      description: 'Read one model by id: its context window, output limit and whether it is the offline engine.',
    });
    const tools: ToolDefinition[] = generateTools(modified);
    const added = tools.find(({ name }) => name === 'get_model')!;
    expect(added.inputSchema).toMatchObject({ type: 'object', required: ['id'], properties: { id: { $ref: '#/$defs/ResourceId' } } });
    expect(added.outputSchema).toMatchObject({ type: 'object', properties: { object: { const: 'model' } } });
    expect(added.annotations.readOnlyHint).toBe(true);

    // Served against the real server, through its own request handling, as the mounted endpoint does.
    const server = createPersonaMcpServer({ call: injectCaller(h.app, '/api/v1', `Bearer ${t.key}`), tools, version: '0.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const inMemory = new Client({ name: 'regenerated', version: '1.0.0' });
    await inMemory.connect(clientSide);
    try {
      expect((await inMemory.listTools()).tools.map(({ name }) => name)).toContain('get_model');
      const model = (await inMemory.callTool({ name: 'get_model', arguments: { id: 'service-1' } })) as CallToolResult;
      expect(model.structuredContent).toMatchObject({ id: 'service-1', object: 'model', engine: 'offline' });
    } finally {
      await inMemory.close();
      await server.close();
    }
  });

  it('is refused at build time when it is malformed', () => {
    const broken = structuredClone(bundle);
    annotate(broken, { name: 'Get Model', description: 'too short' });
    expect(() => generateTools(broken)).toThrow(/getModel: invalid x-mcp annotation/);
    annotate(broken, { name: 'ask_persona', title: 'Duplicate', description: 'A second tool with the name of an existing one.' });
    expect(() => generateTools(broken)).toThrow(/Two operations are annotated as the tool ask_persona/);
  });
});
