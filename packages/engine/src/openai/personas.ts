// Persona generation and suggestions through the upstream model: one json_schema call each (schemas taken
// from the contract), then the same rules as the offline engine — hints copied as given, fields outside the
// pipeline emptied, ids and the input summary made here — and a final check against the contract.
import { ADVANCED_FIELDS, B2B_FIELDS, B2C_FIELDS, completeDetails, INTERMEDIATE_FIELDS, type DetailsField } from '../catalog/pipeline.js';
import { EngineError } from '../errors.js';
import { clip, stableId } from '../offline/text.js';
import { contractSchema } from '../schema/bundle.js';
import { describeErrors, validateAgainst } from '../schema/validate.js';
import type {
  EngineUsage,
  GeneratedPersona,
  JsonSchema,
  PersonaDetails,
  PersonaGenerationInput,
  PersonaSuggestion,
  PersonaSuggestionInput,
  PersonaSuggestionResult,
  PersonaType,
  PipelineType,
} from '../types.js';
import type { ChatMessage } from './wire.js';

export type StructuredCall = (name: string, schema: JsonSchema, messages: ChatMessage[]) => Promise<{ value: Record<string, unknown>; usage: EngineUsage[] }>;

const HINT_FIELDS = ['role_title', 'seniority', 'industry', 'company_size', 'life_stage', 'age_band', 'income_band', 'locale_scope', 'locale_value', 'goals', 'pains', 'channels'] as const;

function pipelineRules(pipeline: PipelineType): string {
  const skipped: readonly string[] = pipeline === 'north_star' ? [...INTERMEDIATE_FIELDS, ...ADVANCED_FIELDS] : pipeline === 'intermediate' ? ADVANCED_FIELDS : [];
  return [
    `Pipeline ${pipeline}: fill every field of details that applies.`,
    skipped.length > 0 ? `These fields do not apply to this pipeline: set strings to null, lists to [], objects to {}, is_localized to false: ${skipped.join(', ')}.` : null,
    `For a B2B persona leave these null or empty: ${B2C_FIELDS.join(', ')}. For a B2C persona leave these null or empty: ${B2B_FIELDS.join(', ')}.`,
    'mcda_weights maps snake_case criteria to weights between 0 and 1 that sum to 1.',
  ]
    .filter(Boolean)
    .join(' ');
}

export async function generatePersonaUpstream(input: PersonaGenerationInput, call: StructuredCall): Promise<GeneratedPersona> {
  const pipeline = input.pipeline_type ?? 'north_star';
  const creation = contractSchema('CustomPersona') as { properties: Record<string, JsonSchema> };
  const schema: JsonSchema = {
    type: 'object',
    required: ['name', 'category', 'type', 'details', 'ai_generated'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 100 },
      category: { type: 'string', minLength: 1, maxLength: 100 },
      type: { type: 'string', enum: ['B2B', 'B2C'] },
      details: contractSchema('PersonaDetails'),
      ai_generated: creation.properties.ai_generated,
    },
  };
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: [
        'You create realistic, specific marketing personas from a description. Write concrete goals, pains, objections and channels in plain language; never generic filler.',
        pipelineRules(pipeline),
        'Copy every hint exactly into the details field of the same name. ai_generated.confidence says how well the description supports the profile (0 to 1); ai_generated.rationale explains it in a few sentences.',
      ].join(' '),
    },
    { role: 'user', content: JSON.stringify({ description: input.description, name: input.name, type: input.type, category: input.category, pipeline_type: pipeline, hints: input.hints ?? {} }) },
  ];
  const { value, usage } = await call('persona_profile', schema, messages);
  const type: PersonaType = input.type ?? (value.type as PersonaType);
  const given = { ...(value.details as Partial<PersonaDetails>) };
  const keep: DetailsField[] = [];
  for (const field of HINT_FIELDS) {
    const hint = input.hints?.[field];
    if (hint === undefined) continue;
    (given as Record<string, unknown>)[field] = hint;
    keep.push(field);
  }
  const details = completeDetails(given, type, pipeline, keep);
  const check = validateAgainst(contractSchema('PersonaDetails'), details);
  if (!check.valid) throw new EngineError('structured_output_invalid', `The generated persona details do not match the contract: ${describeErrors(check.errors)}`, { usage: usage[0] });
  const aiGenerated = value.ai_generated as { confidence: number; rationale: string };
  return {
    name: input.name ?? clip(String(value.name), 100),
    category: input.category ?? clip(String(value.category), 100),
    description: input.description,
    type,
    pipeline_type: pipeline,
    details,
    ai_generated: { confidence: aiGenerated.confidence, rationale: clip(aiGenerated.rationale, 2000) },
  };
}

export async function suggestPersonasUpstream(input: PersonaSuggestionInput, call: StructuredCall): Promise<PersonaSuggestionResult> {
  const suggestion = contractSchema('PersonaSuggestion') as { properties: Record<string, JsonSchema>; required: string[] };
  const { id: _id, object: _object, ...properties } = suggestion.properties;
  const item: JsonSchema = { type: 'object', required: suggestion.required.filter((key) => key !== 'id' && key !== 'object'), properties };
  const schema: JsonSchema = { type: 'object', required: ['suggestions'], properties: { suggestions: { type: 'array', minItems: 3, maxItems: 6, items: item } } };
  const sources = (input.sources ?? []).map((source, index) => `Source ${index + 1}${source.name ? ` (${source.name})` : ''}:\n${clip(source.text, 4000)}`);
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        'You suggest 3 to 6 buyer personas for a business, best fit first: distinct roles or segments, each with a concrete description, buying stage, decision role, a rationale tied to the business goals, goals, pains, channels, triggers and a confidence from 0 to 1.',
    },
    { role: 'user', content: [JSON.stringify({ business_description: input.business_description, target_customers: input.target_customers, goals: input.goals }), ...sources].join('\n\n') },
  ];
  const { value } = await call('persona_suggestions', schema, messages);
  const raw = value.suggestions as Array<Omit<PersonaSuggestion, 'id' | 'object'>>;
  const data: PersonaSuggestion[] = raw
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.confidence - a.entry.confidence || a.index - b.index)
    .map(({ entry, index }) => ({ id: stableId('psug_', input.business_description, entry.name, index), object: 'persona_suggestion' as const, ...entry }));
  return {
    data,
    input_summary: {
      business_description: clip(input.business_description, 500),
      target_customers: input.target_customers.slice(0, 10).map((customer) => clip(customer, 200)),
      goals: input.goals.slice(0, 10).map((goal) => clip(goal, 200)),
      sources_count: Math.min(input.sources?.length ?? 0, 10),
    },
  };
}
