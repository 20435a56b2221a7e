// The MCP server over any way of calling the HTTP API: the API server mounts it with its own request
// handling (fastify.inject with the caller's key), `pnpm mcp` with @persona-api/client. Either way every tool
// call, resource and prompt is one or more ordinary API requests: same validation, rate limits and credits.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from './generate.js';
import type { ErrorResponse, Persona, PersonaList } from '@persona-api/client';

/** One HTTP request of the contract, under its base path (`/personas/persona_x`). */
export interface ApiRequest {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** The answer: its status and parsed JSON body (the error envelope when the status is not 200). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

export type ApiCaller = (request: ApiRequest) => Promise<ApiAnswer>;

export interface PersonaMcpOptions {
  /** How this server reaches the API, authenticated as its caller. */
  call: ApiCaller;
  tools: readonly ToolDefinition[];
  version: string;
  /** How often a job tool polls its job while it reports progress (default 2 s). */
  jobPollIntervalMs?: number;
  /** How long a job tool waits for its job before answering with the job as it is (default 50 s, under a client's usual 60 s). */
  jobWaitMs?: number;
}

/** A failed API call as the tool error a model reads: the envelope's message, code and param, then the envelope. */
export function toolError(answer: ApiAnswer): CallToolResult {
  // The body of a failure is the contract's envelope; anything else (a proxy's page) reads as an empty one.
  const error: Partial<ErrorResponse['error']> = (answer.body as Partial<ErrorResponse> | null)?.error ?? {};
  const code = error.code ?? 'internal_error';
  const param = error.param ? `, param ${error.param}` : '';
  return {
    isError: true,
    content: [
      { type: 'text', text: `${error.message ?? `HTTP ${answer.status}`} (${code}${param}; HTTP ${answer.status})` },
      { type: 'text', text: JSON.stringify({ status: answer.status, ...(answer.body as object) }) },
    ],
  };
}

const success = (body: unknown, note?: string): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }, ...(note ? [{ type: 'text' as const, text: note }] : [])],
  structuredContent: body as Record<string, unknown>,
});

/** The HTTP request a tool call stands for; a path argument that is missing is the API's own 400 shape. */
export function requestFor(tool: ToolDefinition, args: Record<string, unknown>): ApiRequest | ApiAnswer {
  const { method, arguments: locations } = tool.operation;
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const hasBody = Object.values(locations).includes('body') || method === 'POST' || method === 'PATCH';
  for (const [name, value] of Object.entries(args)) {
    const location = locations[name];
    if (location === 'query') query[name] = value;
    else if (location === 'body' || (location === undefined && hasBody))
      body[name] = value; // the API refuses unknown body fields
    else if (location === undefined) return invalid('unknown_parameter', `Unknown argument ${name} for the tool ${tool.name}.`, name);
  }
  let path = tool.operation.path;
  for (const [name, location] of Object.entries(locations)) {
    if (location !== 'path') continue;
    const value = args[name];
    if (value === undefined || value === null || value === '') return invalid('missing_parameter', `The tool ${tool.name} needs the argument ${name}.`, name);
    // Anything else goes as text: the API answers a malformed id as it would over HTTP.
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  }
  return { method, path, query, ...(hasBody ? { body } : {}) };
}

const invalid = (code: string, message: string, param: string): ApiAnswer => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', code, param } },
});

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

const PERSONA_URI = /^persona:\/\/([A-Za-z0-9_-]{1,64})$/;
const personaUri = (id: string) => `persona://${id}`;

/** The MCP server: generated tools, personas as resources and as prompt templates. One per session or request. */
export function createPersonaMcpServer(options: PersonaMcpOptions): Server {
  const { call, tools } = options;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const pollMs = options.jobPollIntervalMs ?? 2_000;
  const waitMs = options.jobWaitMs ?? 50_000;
  const server = new Server(
    { name: 'persona-api', title: 'Persona API', version: options.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        'Personas are simulated buyers and customers. Find one with list_personas, ask it with ask_persona, ask several with run_focus_group; ' +
        'meetings, news, video analyses, brand voices and generations have their own tools. Calls that use a model cost credits (get_usage).',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const built = requestFor(tool, request.params.arguments ?? {});
    if (!('method' in built)) return toolError(built);
    const answer = await call({ ...built, signal: extra.signal });
    if (answer.status !== 200) return toolError(answer);
    const job = tool.operation.job;
    const progressToken = request.params._meta?.progressToken;
    if (!job || progressToken === undefined) return success(answer.body);

    // A job and a client that follows progress: poll the job (an ordinary read) until it ends or the wait is up.
    const poll = tools.find((candidate) => candidate.operation.operationId === job.poll);
    let current = answer.body as Record<string, unknown>;
    let sent = 0;
    let lastKey = '';
    const report = async () => {
      const status = String(current[job.status]);
      const percent = job.progress ? Number(current[job.progress]) : Number.NaN;
      const key = `${status}:${percent}`;
      if (key === lastKey) return;
      lastKey = key;
      // Progress must only grow: a percentage when the job has one (never below what was sent), else a step count.
      const progress = Number.isFinite(percent) ? (percent > sent ? percent : sent + 0.01) : sent + 1;
      sent = progress;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, ...(Number.isFinite(percent) ? { total: 100 } : {}), message: `${tool.title}: ${status}` },
      });
    };
    const deadline = Date.now() + waitMs;
    await report();
    while (!job.done.includes(String(current[job.status])) && Date.now() < deadline && !extra.signal.aborted) {
      await sleep(pollMs, extra.signal);
      const polled = await call({ method: 'GET', path: job.pollPath.replace('{id}', encodeURIComponent(String(current.id))), signal: extra.signal });
      if (polled.status !== 200) return toolError(polled);
      current = polled.body as Record<string, unknown>;
      await report();
    }
    const finished = job.done.includes(String(current[job.status]));
    return success(
      current,
      finished
        ? undefined
        : `Still ${String(current[job.status])}: read it again later with ${poll?.name ?? `GET ${job.pollPath}`} (id ${String(current.id)}).`,
    );
  });

  // Personas: the catalogue and the account's custom ones, one page of the API per page of MCP.
  const personaPage = async (cursor: string | undefined, signal: AbortSignal) => {
    const answer = await call({ method: 'GET', path: '/personas', query: { limit: 100, ...(cursor ? { cursor } : {}) }, signal });
    if (answer.status !== 200) throw protocolError(answer);
    const page = answer.body as PersonaList;
    return { personas: page.data, nextCursor: page.next_cursor ?? undefined };
  };
  const readPersona = async (id: string, signal: AbortSignal) => {
    const answer = await call({ method: 'GET', path: `/personas/${encodeURIComponent(id)}`, signal });
    if (answer.status !== 200) throw protocolError(answer);
    return answer.body as Persona;
  };
  const summaryOf = (persona: Persona) =>
    [persona.is_custom ? 'Custom persona' : 'Catalogue persona', persona.type, persona.category].filter(Boolean).join(', ') +
    (persona.description ? `: ${persona.description}` : '');

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const { personas, nextCursor } = await personaPage(request.params?.cursor, extra.signal);
    return {
      resources: personas.map((persona) => ({
        uri: personaUri(persona.id),
        name: persona.id,
        title: persona.name,
        description: summaryOf(persona),
        mimeType: 'application/json',
      })),
      ...(nextCursor ? { nextCursor } : {}),
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'persona://{id}',
        name: 'persona',
        title: 'Persona profile',
        description: 'The full profile of a persona (`persona_…` from the catalogue, `cp_…` custom), as JSON.',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const id = PERSONA_URI.exec(request.params.uri)?.[1];
    if (!id) throw new McpError(ErrorCode.InvalidParams, `Unknown resource URI: ${request.params.uri} (expected persona://{id})`);
    const persona = await readPersona(id, extra.signal);
    return { contents: [{ uri: personaUri(persona.id), mimeType: 'application/json', text: JSON.stringify(persona) }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
    const { personas, nextCursor } = await personaPage(request.params?.cursor, extra.signal);
    return {
      prompts: personas.map((persona) => ({
        name: persona.id,
        title: `Ask ${persona.name}`,
        description: summaryOf(persona),
        arguments: [{ name: 'question', description: 'What to ask the persona, or what it should react to.', required: true }],
      })),
      ...(nextCursor ? { nextCursor } : {}),
    };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const question = request.params.arguments?.question;
    if (!question) throw new McpError(ErrorCode.InvalidParams, 'The prompt needs the argument question.');
    const persona = await readPersona(request.params.name, extra.signal);
    return {
      description: `${persona.name}: ${summaryOf(persona)}`,
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: personaUri(persona.id), mimeType: 'application/json', text: JSON.stringify(persona) } },
        },
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `Answer as ${persona.name}, the persona profiled above: in the first person, from its role, goals, pains and objections, ` +
              `without breaking character. (For the service's own answer in this voice, call the ask_persona tool with persona_id ${persona.id}.)\n\n` +
              question,
          },
        },
      ],
    };
  });

  return server;
}

/** An API failure outside a tool (a resource or prompt): a JSON-RPC error carrying the envelope's message and code. */
function protocolError(answer: ApiAnswer): McpError {
  // The body of a failure is the contract's envelope; anything else (a proxy's page) reads as an empty one.
  const error: Partial<ErrorResponse['error']> = (answer.body as Partial<ErrorResponse> | null)?.error ?? {};
  // -32002 is MCP's "resource not found".
  const code = answer.status === 404 ? -32002 : answer.status === 400 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, `${error.message ?? `HTTP ${answer.status}`} (${error.code ?? 'internal_error'})`, {
    status: answer.status,
    ...(answer.body as object),
  });
}
