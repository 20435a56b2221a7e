// Responses written one byte per character (DECISIONS.md): what the serializer, Buffer.byteLength and the
// socket's encoding cost for a real page whose strings have a few characters above U+00FF (the base
// persona page, GET /personas?limit=50: ’, –), against its ASCII twin (those characters replaced by '-'),
// in one process with the contract's schema and the server's serializer. Before the patch of
// fast-json-stringify the first was about 3× the second; the patch writes those characters as \uXXXX
// escapes, so both cost about the same. The rows `oneOf kept` give the page's Persona union to the
// serializer as the contract writes it, instead of as the if/then/else chain serializerSchema makes of it.
//
//   pnpm build && pnpm bench:serialization [--unpatched DIR] [--requests 1000] [--json]
//
// --unpatched DIR: a copy of fast-json-stringify without the patch (e.g. `npm pack fast-json-stringify@7.3.6`
// unpacked), measured beside the server's own; the end-to-end GET /personas is then also timed against a
// second server process whose `require('fast-json-stringify')` is sent to that copy. PGlite, 127.0.0.1 only.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { log } from '../lib/log.mjs';
import { apiDir, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    unpatched: { type: 'string' },
    requests: { type: 'string', default: '1000' },
    json: { type: 'boolean', default: false },
  },
});
const REQUESTS = Number(args.requests);
const KEY = `svc_live_${randomBytes(20).toString('hex')}`;
const PAGE = '/personas?limit=50';

// The serializer the server uses: fast-json-stringify as Fastify's compiler resolves it.
const apiRequire = createRequire(join(apiDir, 'package.json'));
const compilerDir = dirname(createRequire(apiRequire.resolve('fastify')).resolve('@fastify/fast-json-stringify-compiler/package.json'));
const serverFjsPath = createRequire(join(compilerDir, 'package.json')).resolve('fast-json-stringify');
const serverFjs = apiRequire(serverFjsPath);
const unpatchedPath = args.unpatched ? createRequire(join(resolve(args.unpatched), 'package.json')).resolve('./') : undefined;
const unpatchedFjs = unpatchedPath ? apiRequire(unpatchedPath) : undefined;

const { loadSpec, serializerSchema, withNullableScalars } = await import(pathToFileURL(join(apiDir, 'dist/contract/spec.js')).href);
const spec = loadSpec();
// The page's items are a union told apart by `object` (Persona): as Fastify is given it, the union resolved
// (fastify-openapi-glue dereferences the contract) and rewritten by serializerSchema; `oneOf kept` is the same
// schema with the union left as the contract writes it.
const personaUnion = {
  oneOf: spec.components.schemas.Persona.oneOf.map((member) => spec.components.schemas[member.$ref.split('/').pop()]),
};
// PersonaList: the list envelope and its data.
const pageWith = (items) => ({
  allOf: [{ $ref: '#/components/schemas/ListEnvelope' }, { type: 'object', required: ['data'], properties: { data: { type: 'array', items } } }],
});
const components = withNullableScalars(spec.components);
const schema = { ...serializerSchema(pageWith(personaUnion)), components };
const oneOfKept = { ...withNullableScalars(pageWith(personaUnion)), components };

const dataDir = mkdtempSync(join(tmpdir(), 'persona-bench-serialization-'));
const hookFile = join(dataDir, 'unpatched-fjs.cjs');
const env = { BOOTSTRAP_API_KEY: KEY, DATA_DIR: dataDir };
const servers = { server: await startApiServer(env) };
if (unpatchedPath) {
  // A second server on the same data would fight over PGlite's directory: its own (the same development key).
  writeFileSync(
    hookFile,
    `const Module = require('node:module'); const resolve = Module._resolveFilename;
     Module._resolveFilename = function (request, ...rest) { return request === 'fast-json-stringify' ? ${JSON.stringify(unpatchedPath)} : resolve.call(this, request, ...rest); };`,
  );
  servers.unpatched = await startApiServer({ ...env, DATA_DIR: join(dataDir, 'unpatched'), NODE_OPTIONS: `--require ${hookFile}` });
}
const headers = { authorization: `Bearer ${KEY}` };
const page = await (await fetch(`${servers.server.baseUrl}/api/v1${PAGE}`, { headers })).json();

const WIDE = /[\u0100-\uffff]/g;
const asciiTwin = JSON.parse(JSON.stringify(page).replace(WIDE, '-'));
const wideCount = (JSON.stringify(page).match(WIDE) ?? []).length;

/** Serialized, measured (Fastify's content-length) and encoded (the socket write), as one response is. */
const respond = (stringify, body) => () => {
  const text = stringify(body);
  return Buffer.byteLength(text) + Buffer.from(text).length;
};
const serializers = {
  server: serverFjs(schema),
  'server, oneOf kept': serverFjs(oneOfKept),
  ...(unpatchedFjs ? { 'unpatched, oneOf kept': unpatchedFjs(oneOfKept) } : {}),
};
const cases = Object.entries(serializers).flatMap(([name, stringify]) => [
  [`${name}, page with ${wideCount} characters above U+00FF`, respond(stringify, page)],
  [`${name}, its ASCII twin`, respond(stringify, asciiTwin)],
]);
const micro = Object.fromEntries(cases.map(([name]) => [name, []]));
for (let round = 0; round < 9; round++) {
  for (const [name, run] of cases) {
    for (let i = 0; i < 50; i++) run();
    const started = performance.now();
    for (let i = 0; i < 300; i++) run();
    micro[name].push(((performance.now() - started) / 300) * 1000);
  }
}
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

// End to end: sequential GETs of the page, the servers interleaved.
const endToEnd = {};
if (servers.unpatched) {
  const times = { server: [], unpatched: [] };
  for (let i = 0; i < REQUESTS + 50; i++) {
    for (const name of i % 2 ? ['server', 'unpatched'] : ['unpatched', 'server']) {
      const started = performance.now();
      const res = await fetch(`${servers[name].baseUrl}/api/v1${PAGE}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
      if (i >= 50) times[name].push(performance.now() - started);
    }
  }
  for (const [name, values] of Object.entries(times)) endToEnd[name] = Number(median(values).toFixed(2));
}
for (const server of Object.values(servers)) await stopProcess(server.child);
rmSync(dataDir, { recursive: true, force: true });

const rows = Object.entries(micro).map(([name, values]) => ({ name, microseconds: Number(median(values).toFixed(1)) }));
if (args.json) {
  process.stdout.write(`${JSON.stringify({ bytes: JSON.stringify(page).length, wideCount, rows, endToEnd }, null, 2)}\n`);
} else {
  log(`GET ${PAGE}: ${Buffer.byteLength(JSON.stringify(page))} bytes, ${wideCount} characters above U+00FF`);
  process.stdout.write('| serializer, body | serialize + byteLength + encode (µs, median of 9 rounds) |\n|---|---:|\n');
  for (const row of rows) process.stdout.write(`| ${row.name} | ${row.microseconds} |\n`);
  if (servers.unpatched)
    process.stdout.write(`\nGET ${PAGE} end to end, p50 of ${REQUESTS}: server ${endToEnd.server} ms, unpatched ${endToEnd.unpatched} ms\n`);
}
