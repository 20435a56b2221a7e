// @ts-check
// `x-codeSamples` for one operation, made from the request the spec's own examples describe
// (the same request the mock test sends): curl, and TypeScript with @persona-api/client.
import { isJsonMediaType } from '@persona-api/openapi/document';

/** @typedef {import('@persona-api/openapi/document').ExampleRequest} ExampleRequest */
/** @typedef {{ lang: string, label: string, source: string }} CodeSample */

const API_KEY_VARIABLE = 'PERSONA_API_KEY';

/** A shell word in single quotes (`'` written as `'\''`). */
const shellQuote = (/** @type {string} */ text) => `'${text.replaceAll("'", `'\\''`)}'`;

/** JSON as a TypeScript object literal: identifier keys unquoted, indented to sit at `indent`. */
function tsLiteral(/** @type {unknown} */ value, indent = '') {
  return JSON.stringify(value, null, 2)
    .replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, '$1$2:')
    .replaceAll('\n', `\n${indent}`);
}

/** @param {ExampleRequest} request */
function isStreamed(request) {
  const value = request.body?.value;
  return typeof value === 'object' && value !== null && 'stream' in value && value.stream === true;
}

/** @param {ExampleRequest} request @param {string} baseUrl @param {{ stream?: boolean }} [options] */
export function curlSample(request, baseUrl, options = {}) {
  const method = request.method.toUpperCase();
  const lines = [`curl${options.stream ? ' -N' : ''}${method === 'GET' ? '' : ` -X ${method}`} ${shellQuote(baseUrl + request.url)}`];
  if (request.requiresApiKey) lines.push(`-H "Authorization: Bearer $${API_KEY_VARIABLE}"`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  const body = request.body;
  if (body && isJsonMediaType(body.contentType)) {
    const value = options.stream ? { .../** @type {object} */ (body.value), stream: true } : body.value;
    lines.push(`-H 'Content-Type: ${body.contentType}'`, `-d ${shellQuote(JSON.stringify(value, null, 2))}`);
  } else if (body) {
    lines.push(`-H ${shellQuote(`Content-Type: ${body.contentType}`)}`, '--data-binary @./file');
  }
  return lines.join(' \\\n  ');
}

/** @param {ExampleRequest} request */
function tsInit(request, { withoutStream = false } = {}) {
  /** @type {string[]} */
  const fields = [];
  const params = Object.entries(request.values)
    .filter(([, values]) => Object.keys(values).length > 0)
    .map(([location, values]) => `${location}: ${tsLiteral(values, '    ')}`);
  if (params.length > 0) fields.push(`params: {\n    ${params.join(',\n    ')},\n  }`);
  const body = request.body;
  if (body && isJsonMediaType(body.contentType)) {
    /** @type {any} */
    let value = body.value;
    if (withoutStream && typeof value === 'object' && value !== null) {
      const { stream: _stream, ...rest } = value;
      value = rest;
    }
    fields.push(`body: ${tsLiteral(value, '  ')}`);
  } else if (body) {
    fields.push(`body: await readFile('./file')`, `headers: { 'Content-Type': ${JSON.stringify(body.contentType)} }`);
  }
  return fields.length === 0 ? '' : `, {\n  ${fields.join(',\n  ')},\n}`;
}

/** @param {ExampleRequest} request @param {{ streaming?: boolean }} [options] */
export function typescriptSample(request, options = {}) {
  const imports = [`import { createClient } from '@persona-api/client';`];
  if (request.body && !isJsonMediaType(request.body.contentType)) imports.push(`import { readFile } from 'node:fs/promises';`);
  const lines = [
    imports.join('\n'),
    `const persona = createClient({ apiKey: process.env.${API_KEY_VARIABLE}! });`,
    `const { data } = await persona.${request.method.toUpperCase()}('${request.path}'${tsInit(request)});\nconsole.log(data);`,
  ];
  if (options.streaming) {
    lines.push(
      `// Streamed as Server-Sent Events (the client sends \`stream: true\`):\n` +
        `const stream = await persona.stream('${request.path}'${tsInit(request, { withoutStream: true })});\n` +
        `for await (const event of stream) console.log(event);`,
    );
  }
  return lines.join('\n\n');
}

/**
 * One curl and one TypeScript sample; for an operation that can stream, each also shows the streamed call.
 * The languages match `openapi.codeSamples.languages` in redocly.yaml.
 * @param {ExampleRequest} request
 * @param {string} baseUrl
 * @param {boolean} streaming the operation answers `stream: true` with Server-Sent Events
 * @returns {CodeSample[]}
 */
export function codeSamples(request, baseUrl, streaming) {
  let curl = curlSample(request, baseUrl, { stream: isStreamed(request) });
  if (streaming && !isStreamed(request)) {
    curl += `\n\n# Streamed as Server-Sent Events:\n${curlSample(request, baseUrl, { stream: true })}`;
  }
  return [
    { lang: 'curl', label: 'curl', source: curl },
    { lang: 'TypeScript', label: 'TypeScript', source: typescriptSample(request, { streaming }) },
  ];
}
