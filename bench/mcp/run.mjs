// What a tool call costs over the HTTP call it stands for: the real server (a child process, PGlite,
// offline engine), the official MCP SDK client over Streamable HTTP (/mcp) and over stdio (`pnpm mcp`'s
// entry point, calling the API with @persona-api/client), against the same operation called directly.
//
//   pnpm build && pnpm --filter @persona-api/bench mcp [--calls 200] [--json]
//
// Measures sequential latency (p50, p99) of a read (GET /personas/{id} vs get_persona) and of a persona
// answer (POST /responses vs ask_persona). Only 127.0.0.1 is a target; every phase is bounded by --calls.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { log } from '../lib/log.mjs';
import { createBenchAccount, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '200' }, json: { type: 'boolean', default: false } } });
const CALLS = Number(args.calls);
const mcpDir = dirname(createRequire(import.meta.url).resolve('@persona-api/mcp/package.json'));
const ASK = {
  model: 'service-1',
  persona_id: 'persona_saas_cfo',
  input: 'We are pitching an AI forecasting add-on at $18 per seat per month. What would make you say yes?',
};

/** p50 and p99 of CALLS sequential calls of `call`, after 10 warm-up calls. */
async function timed(call) {
  for (let i = 0; i < 10; i++) await call();
  const samples = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] * 100) / 100;
  return { p50_ms: at(0.5), p99_ms: at(0.99) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
const env = { DATA_DIR: dataDir, WORKERS: 'off' };
let server;
const clients = [];
try {
  const key = await createBenchAccount(env, 'bench-mcp');
  server = await startApiServer(env);
  const api = `${server.baseUrl}/api/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const direct = {
    read: () => fetch(`${api}/personas/persona_saas_cfo`, { headers }).then(async (r) => (r.ok ? r.json() : Promise.reject(new Error(await r.text())))),
    ask: () =>
      fetch(`${api}/responses`, { method: 'POST', headers, body: JSON.stringify(ASK) }).then(async (r) =>
        r.ok ? r.json() : Promise.reject(new Error(await r.text())),
      ),
  };
  const connect = async (transport) => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(transport);
    await client.listTools();
    clients.push(client);
    return client;
  };
  const http = await connect(
    new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  const stdio = await connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(mcpDir, 'dist/stdio.js')],
      env: { PERSONA_API_KEY: key, PERSONA_API_BASE_URL: api },
      stderr: 'ignore',
    }),
  );
  const tool = (client, name, args) => async () => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  const results = {};
  for (const [name, directCall, toolName, toolArgs] of [
    ['read', direct.read, 'get_persona', { id: 'persona_saas_cfo' }],
    ['ask', direct.ask, 'ask_persona', ASK],
  ]) {
    results[name] = {
      http_direct: await timed(directCall),
      mcp_streamable_http: await timed(tool(http, toolName, toolArgs)),
      mcp_stdio: await timed(tool(stdio, toolName, toolArgs)),
    };
    log(`${name}: ${JSON.stringify(results[name])}`);
  }
  if (args.json) console.log(JSON.stringify({ calls: CALLS, ...results }, null, 2));
} finally {
  for (const client of clients) await client.close().catch(() => {});
  if (server) await stopProcess(server.child);
  rmSync(dataDir, { recursive: true, force: true });
}
