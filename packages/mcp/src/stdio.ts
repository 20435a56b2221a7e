#!/usr/bin/env node
// `pnpm mcp`: the MCP server over stdio for desktop clients (Claude Desktop, Cursor…), calling the HTTP API
// at PERSONA_API_BASE_URL with PERSONA_API_KEY. stdout carries only the protocol; diagnostics go to stderr.
import { createClient } from '@persona-api/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { clientCaller } from './client-caller.js';
import { loadTools, PACKAGE_VERSION } from './tools.js';
import { createPersonaMcpServer } from './server.js';

const apiKey = process.env.PERSONA_API_KEY;
if (!apiKey) {
  process.stderr.write('persona-api MCP: set PERSONA_API_KEY to your API key (svc_live_…).\n');
  process.exit(1);
}
const baseUrl = process.env.PERSONA_API_BASE_URL ?? 'http://localhost:8080/api/v1';
const client = createClient({ apiKey, baseUrl, headers: { 'User-Agent': `persona-api-mcp/${PACKAGE_VERSION}` } });
const server = createPersonaMcpServer({ call: clientCaller(client), tools: loadTools(), version: PACKAGE_VERSION });
await server.connect(new StdioServerTransport());
process.stderr.write(`persona-api MCP: serving over stdio, API at ${baseUrl}\n`);
