// `pnpm build` step: the bundle's annotated operations → dist/tools.json (read by the server at start).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBundle } from '@persona-api/openapi/document';
import { generateTools } from './generate.js';

const out = join(dirname(fileURLToPath(import.meta.url)), 'tools.json');
const tools = generateTools(loadBundle());
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(tools, null, 2)}\n`);
const tokens = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);
const listed = tools.map(({ operation: _operation, ...tool }) => tool);
console.log(`MCP tools: ${tools.length} from x-mcp annotations → ${out} (tools/list ≈ ${tokens({ tools: listed })} tokens)`);
