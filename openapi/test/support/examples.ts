// Finds every example of the document and checks it against its schema:
//  - media-type `example`/`examples` of request bodies and responses (component examples followed);
//  - parameter and header `example`/`examples`;
//  - schema-level `examples` arrays, at any depth;
//  - `text/event-stream` examples: an SSE transcript whose every event's `data` is validated against the
//    media type's schema (the event union); it must end with `data: [DONE]`, and an `event:` name must
//    equal the payload's `type`.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { deref, operationParameters, operations, walkAllSchemas } from '../../spectral/lib/openapi-walk.js';
import { validationErrors, type ContractAjv } from '@persona-api/openapi/ajv';
import { pointer, type OpenApiDocument } from './bundle.js';

type Path = ReadonlyArray<string | number>;

export interface ExampleCase {
  /** Where the example is used, e.g. `POST /responses 200 text/event-stream example "stream"`. */
  name: string;
  /** JSON Pointer of the example in the bundle. */
  at: string;
  /** Path of the schema it must match. */
  schemaPath: Path;
  value: unknown;
  stream: boolean;
}

const SSE = 'text/event-stream';
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `example` and each entry of `examples` of a media type, parameter or header object. */
function* exampleValues(doc: OpenApiDocument, holder: Record<string, any>, holderPath: Path) {
  if (holder.example !== undefined) yield { label: 'example', value: holder.example, at: [...holderPath, 'example'] };
  for (const [key, raw] of Object.entries(isObject(holder.examples) ? holder.examples : {})) {
    const { node, path } = deref(doc, raw, [...holderPath, 'examples', key]);
    if (!isObject(node)) continue;
    // Examples live inline in this repository; an externalValue could not be checked.
    const value = 'externalValue' in node ? { externalValue: node.externalValue } : node.value;
    yield { label: `example "${key}"`, value, at: [...path, 'value'], external: 'externalValue' in node };
  }
}

function* contentCases(doc: OpenApiDocument, content: unknown, contentPath: Path, where: string): Generator<ExampleCase> {
  for (const [mediaType, media] of Object.entries(isObject(content) ? content : {})) {
    if (!isObject(media) || !isObject(media.schema)) continue;
    const mediaPath = [...contentPath, mediaType];
    for (const ex of exampleValues(doc, media, mediaPath)) {
      yield {
        name: `${where} ${mediaType} ${ex.label}`,
        at: pointer(ex.at),
        schemaPath: [...mediaPath, 'schema'],
        value: ex.value,
        stream: mediaType === SSE,
      };
    }
  }
}

export function collectExamples(doc: OpenApiDocument): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const op of operations(doc)) {
    const where = `${op.method.toUpperCase()} ${op.pathKey}`;
    for (const { parameter, path } of operationParameters(doc, op) as Array<{ parameter: Record<string, any>; path: Path }>) {
      if (!isObject(parameter.schema)) continue;
      for (const ex of exampleValues(doc, parameter, path)) {
        cases.push({
          name: `${where} parameter ${parameter.name} ${ex.label}`,
          at: pointer(ex.at),
          schemaPath: [...path, 'schema'],
          value: ex.value,
          stream: false,
        });
      }
    }
    const body = deref(doc, op.operation.requestBody, [...op.path, 'requestBody']);
    if (isObject(body.node)) cases.push(...contentCases(doc, body.node.content, [...body.path, 'content'], `${where} request`));
    for (const [code, raw] of Object.entries(isObject(op.operation.responses) ? op.operation.responses : {})) {
      const response = deref(doc, raw, [...op.path, 'responses', code]);
      if (!isObject(response.node)) continue;
      cases.push(...contentCases(doc, response.node.content, [...response.path, 'content'], `${where} ${code}`));
      for (const [name, rawHeader] of Object.entries(isObject(response.node.headers) ? response.node.headers : {})) {
        const header = deref(doc, rawHeader, [...response.path, 'headers', name]);
        if (!isObject(header.node) || !isObject(header.node.schema)) continue;
        for (const ex of exampleValues(doc, header.node, header.path)) {
          cases.push({
            name: `${where} ${code} header ${name} ${ex.label}`,
            at: pointer(ex.at),
            schemaPath: [...header.path, 'schema'],
            value: ex.value,
            stream: false,
          });
        }
      }
    }
  }
  walkAllSchemas(doc, (schema: Record<string, any>, path: Path) => {
    if (!Array.isArray(schema.examples)) return;
    schema.examples.forEach((value: unknown, i: number) => {
      cases.push({ name: `schema ${pointer(path)} examples[${i}]`, at: pointer([...path, 'examples', i]), schemaPath: path, value, stream: false });
    });
  });
  // The same component example used by several operations is checked once per (example, schema) pair.
  const seen = new Set<string>();
  return cases.filter((c) => {
    const key = `${c.at} ${pointer(c.schemaPath)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Parses an SSE transcript into its dispatched events (an event only counts once a blank line ends it). */
export function parseSse(transcript: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onError: (error) => {
      throw error;
    },
  });
  parser.feed(transcript);
  return events;
}

function streamProblems(transcript: unknown, validate: (value: unknown) => string[]): string[] {
  if (typeof transcript !== 'string') return ['a text/event-stream example must be the SSE transcript, as a string'];
  const events = parseSse(transcript);
  const problems: string[] = [];
  const last = events.at(-1);
  if (last?.data !== '[DONE]') problems.push('the transcript must end with the event `data: [DONE]` (followed by a blank line)');
  if (!events.some((e) => e.data !== '[DONE]')) problems.push('the transcript must have at least one event before [DONE]');
  events.forEach((event, i) => {
    const label = `event ${i + 1}${event.event ? ` (${event.event})` : ''}`;
    if (event.data === '[DONE]') {
      if (i !== events.length - 1) problems.push(`${label}: [DONE] must be the last event`);
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      problems.push(`${label}: data is not JSON`);
      return;
    }
    problems.push(...validate(payload).map((p) => `${label}: ${p}`));
    if (event.event !== undefined && (payload as { type?: unknown })?.type !== event.event) {
      problems.push(`${label}: the SSE event name must equal the payload's type (${JSON.stringify((payload as { type?: unknown })?.type)})`);
    }
  });
  return problems;
}

/**
 * The problems of one example against its schema; empty when it is valid. A schema that strict mode
 * refuses is compiled by the lenient compiler instead, so its examples are still checked (the strict
 * failure itself is reported by schemas-compile-under-ajv-strict.test.ts).
 */
export function checkExample(compilers: { strict: ContractAjv; lenient: ContractAjv }, example: ExampleCase): string[] {
  let validateFn: ReturnType<ContractAjv['validatorAt']>;
  try {
    validateFn = compilers.strict.validatorAt(example.schemaPath);
  } catch {
    validateFn = compilers.lenient.validatorAt(example.schemaPath);
  }
  const validate = (value: unknown) => validationErrors(validateFn, value);
  if (isObject(example.value) && 'externalValue' in example.value) return ['examples must be inline (`value`), not externalValue'];
  return example.stream ? streamProblems(example.value, validate) : validate(example.value);
}
