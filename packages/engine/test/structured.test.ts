import { describe, expect, it } from 'vitest';
import { basePersonas, createOfflineEngine, enginePersonaFromBase, type JsonSchema } from '../src/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const maria = enginePersonaFromBase(basePersonas.find((entry) => entry.id === 'persona_budget_parent_of_three')!);
const input = 'Our meal-kit subscription costs $59 a week for a family of five. What do you think of it?';

// An independent Ajv instance (strict off: test schemas use only standard keywords, formats included).
function validator(schema: JsonSchema) {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

const schemas: Record<string, JsonSchema> = {
  flat: {
    type: 'object',
    properties: { summary: { type: 'string' }, would_buy: { type: 'boolean' } },
    required: ['summary', 'would_buy'],
    additionalProperties: false,
  },
  nested: {
    type: 'object',
    required: ['review'],
    properties: {
      review: {
        type: 'object',
        required: ['title', 'rating', 'author'],
        properties: {
          title: { type: 'string', maxLength: 80 },
          rating: { type: 'integer', minimum: 1, maximum: 5 },
          author: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      },
    },
  },
  arrays: {
    type: 'object',
    required: ['concerns', 'scores'],
    properties: {
      concerns: { type: 'array', minItems: 3, maxItems: 5, items: { type: 'string', minLength: 5 } },
      scores: { type: 'array', minItems: 2, items: { type: 'number', minimum: 0, maximum: 1 } },
    },
    additionalProperties: false,
  },
  enums: {
    type: 'object',
    required: ['verdict', 'channel'],
    properties: { verdict: { enum: ['buy', 'wait', 'pass'] }, channel: { type: 'string', enum: ['email', 'sms'] }, level: { const: 3 } },
  },
  formats: {
    type: 'object',
    required: ['email', 'when', 'site', 'id', 'day'],
    properties: {
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date-time' },
      site: { type: 'string', format: 'uri' },
      id: { type: 'string', format: 'uuid' },
      day: { type: 'string', format: 'date' },
    },
  },
  oneOf: {
    type: 'object',
    required: ['decision'],
    properties: {
      decision: {
        oneOf: [
          { type: 'object', required: ['kind', 'reason'], properties: { kind: { const: 'accept' }, reason: { type: 'string' } }, additionalProperties: false },
          {
            type: 'object',
            required: ['kind', 'counter_offer'],
            properties: { kind: { const: 'counter' }, counter_offer: { type: 'number', exclusiveMinimum: 0 } },
            additionalProperties: false,
          },
        ],
      },
    },
  },
  refsAndNullable: {
    type: 'object',
    $defs: {
      item: {
        type: 'object',
        required: ['label', 'note'],
        properties: { label: { type: 'string', pattern: '^[A-Z][a-z]+$' }, note: { type: ['string', 'null'] } },
        additionalProperties: false,
      },
    },
    required: ['items', 'pros'],
    properties: {
      items: { type: 'array', minItems: 2, items: { $ref: '#/$defs/item' } },
      pros: { type: 'array', minItems: 2, uniqueItems: true, items: { type: 'string' } },
    },
    additionalProperties: false,
  },
  openAiStrict: {
    type: 'object',
    properties: {
      goals: { type: 'array', items: { type: 'string' } },
      budget: { type: ['number', 'null'] },
      objections: { type: 'array', items: { type: 'string' } },
    },
    required: ['goals', 'budget', 'objections'],
    additionalProperties: false,
  },
};

describe('offline structured output', () => {
  it.each(Object.entries(schemas))('produces an instance valid against the %s schema', async (name, schema) => {
    const result = await createOfflineEngine().generate({
      persona: maria,
      messages: [{ role: 'user', content: input }],
      response_format: { type: 'json_schema', name, schema },
    });
    expect(result.structured_output_error).toBeNull();
    expect(result.parsed).not.toBeNull();
    expect(JSON.parse(result.text)).toEqual(result.parsed);
    const validate = validator(schema);
    expect(validate(result.parsed), JSON.stringify(validate.errors)).toBe(true);
  });

  it('is deterministic', async () => {
    const run = () =>
      createOfflineEngine().generate({
        persona: maria,
        messages: [{ role: 'user', content: input }],
        response_format: { type: 'json_schema', name: 'x', schema: schemas.arrays! },
      });
    expect((await run()).text).toBe((await run()).text);
  });

  it('fills free text with the persona and lists with its profile', async () => {
    const result = await createOfflineEngine().generate({
      persona: maria,
      messages: [{ role: 'user', content: input }],
      response_format: { type: 'json_schema', name: 'flat', schema: schemas.flat! },
    });
    expect(String(result.parsed!.summary)).toMatch(/\b(I|me|my)\b/);
    const strict = await createOfflineEngine().generate({
      persona: maria,
      messages: [{ role: 'user', content: input }],
      response_format: { type: 'json_schema', name: 'strict', schema: schemas.openAiStrict! },
    });
    const parsed = strict.parsed as { goals: string[]; objections: string[] };
    expect(parsed.goals.every((goal) => maria.details.goals.includes(goal))).toBe(true);
    expect(parsed.objections.every((objection) => maria.details.objections.includes(objection))).toBe(true);
  });

  it('reports an unsatisfiable schema instead of emitting an invalid instance', async () => {
    const impossible = { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 5, maximum: 4 } } };
    const result = await createOfflineEngine().generate({
      persona: maria,
      messages: [{ role: 'user', content: input }],
      response_format: { type: 'json_schema', name: 'impossible', schema: impossible },
    });
    expect(result.parsed).toBeNull();
    expect(result.structured_output_error).toMatch(/could not produce/);
    expect(result.text).toBe('');
  });
});
