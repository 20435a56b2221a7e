import type { ApiCaller, ToolDefinition } from '@persona-api/mcp';
import type { FastifyInstance } from 'fastify';
import { type ApiKeyFinder, bearerToken } from '../auth/api-keys.js';
import { errors } from '../http/errors.js';
import { enforceRateLimit, type RateLimiter } from '../http/rate-limit.js';

/** Where the MCP server is mounted (outside /api/v1 and the contract, like /healthz and the bot webhook). */
export const MCP_PATH = '/mcp';

export interface McpEndpointOptions {
  prefix: string;
  findApiKey: ApiKeyFinder;
  rateLimiter: RateLimiter;
  rateLimitMultiplier: number;
  /** Defaults to the tools @persona-api/mcp generated from the contract at build time. */
  tools?: readonly ToolDefinition[];
  /** How often job tools poll while reporting progress (tests shorten it). */
  jobPollIntervalMs?: number;
}

/** `?a=1&b=x&b=y` from tool arguments (arrays repeat the parameter, as the contract's `form` style reads them). */
function queryString(query: Record<string, unknown> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The API as a tool call reaches it: the server's own request handling (fastify.inject), with the caller's
 * `Authorization` header, so a tool call is authenticated, rate-limited, validated, charged and recorded in
 * usage exactly as the same HTTP request would be.
 */
export function injectCaller(app: FastifyInstance, prefix: string, authorization: string): ApiCaller {
  return async ({ method, path, query, body }) => {
    const response = await app.inject({
      method: method as 'GET',
      url: `${prefix}${path}${queryString(query)}`,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
    return { status: response.statusCode, body: isJson ? response.json() : { error: { message: response.body, code: 'internal_error' } } };
  };
}

/**
 * The MCP server over Streamable HTTP, stateless (a server and transport per request, no session to keep on
 * one instance). The bearer key is checked here (401 in the envelope otherwise); protocol messages count in a
 * rate-limit window of their own, so that a tool call is counted once, by the API request it makes.
 */
export function registerMcpEndpoint(app: FastifyInstance, options: McpEndpointOptions): void {
  // The MCP SDK and the tools are imported at the first MCP request, not by every server's start
  // (bench/README.md, "Cold start").
  let loading: ReturnType<typeof loadMcp> | undefined;
  const loadMcp = async () => {
    const [{ StreamableHTTPServerTransport }, mcp] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@persona-api/mcp'),
    ]);
    return {
      StreamableHTTPServerTransport,
      createPersonaMcpServer: mcp.createPersonaMcpServer,
      version: mcp.PACKAGE_VERSION,
      tools: options.tools ?? mcp.loadTools(),
    };
  };
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    handler: async (request, reply) => {
      const token = bearerToken(request.headers.authorization);
      const auth = token ? await options.findApiKey(token) : null;
      if (!auth) {
        reply.header('www-authenticate', 'Bearer');
        throw errors.invalidApiKey();
      }
      await enforceRateLimit(
        options.rateLimiter,
        `mcp:${auth.apiKeyId}`,
        auth.requestsPerMinute * options.rateLimitMultiplier,
        (name, value) => reply.header(name, value),
        (decision) => `Rate limit of ${decision.limit} MCP requests per minute exceeded for this API key.`,
      );
      // Stateless: no standalone event stream to open (GET) and no session to end (DELETE), as the SDK's stateless examples answer.
      if (request.method !== 'POST') {
        return reply
          .code(405)
          .header('allow', 'POST')
          .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages.' }, id: null });
      }
      const { StreamableHTTPServerTransport, createPersonaMcpServer, version, tools } = await (loading ??= loadMcp());
      const server = createPersonaMcpServer({
        call: injectCaller(app, options.prefix, `Bearer ${token}`),
        tools,
        version,
        ...(options.jobPollIntervalMs ? { jobPollIntervalMs: options.jobPollIntervalMs } : {}),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        // The reply is hijacked: Fastify's error handler can no longer answer, so this does (the transport answers its own errors).
        request.log.error({ err }, 'MCP request failed');
        if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    },
  });
}
