// The persona profile through an upstream model: the schema (taken from the contract) and the prompt, then
// the same rules as the offline profile — hints copied as given, fields outside the pipeline emptied — and a
// final check of the details against the contract.
import { ADVANCED_FIELDS, B2B_FIELDS, B2C_FIELDS, completeDetails, INTERMEDIATE_FIELDS, type DetailsField } from '../../catalog/pipeline.js';
import { EngineError } from '../../errors.js';
import { contractSchema } from '../../schema/bundle.js';
import { describeErrors, validateAgainst } from '../../schema/validate.js';
import { clip } from '../../text/index.js';
import type { GeneratedPersona, JsonSchema, PersonaDetails, PersonaGenerationInput, PersonaType, PipelineType } from '../../types.js';
import type { FeatureMessage } from '../define.js';
import { HINT_FIELDS } from './hints.js';

function pipelineRules(pipeline: PipelineType): string {
  const skipped: readonly string[] =
    pipeline === 'north_star' ? [...INTERMEDIATE_FIELDS, ...ADVANCED_FIELDS] : pipeline === 'intermediate' ? ADVANCED_FIELDS : [];
  return [
    `Pipeline ${pipeline}: fill every field of details that applies.`,
    skipped.length > 0
      ? `These fields do not apply to this pipeline: set strings to null, lists to [], objects to {}, is_localized to false: ${skipped.join(', ')}.`
      : null,
    `For a B2B persona leave these null or empty: ${B2C_FIELDS.join(', ')}. For a B2C persona leave these null or empty: ${B2B_FIELDS.join(', ')}.`,
    'mcda_weights maps snake_case criteria to weights between 0 and 1 that sum to 1.',
  ]
    .filter(Boolean)
    .join(' ');
}

export function personaProfileSchema(): JsonSchema {
  const creation = contractSchema('CustomPersona') as { properties: Record<string, JsonSchema> };
  return {
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
}

export function personaProfilePrompt(input: PersonaGenerationInput): FeatureMessage[] {
  const pipeline = input.pipeline_type ?? 'north_star';
  return [
    {
      role: 'system',
      content: [
        'You create realistic, specific marketing personas from a description. Write concrete goals, pains, objections and channels in plain language; never generic filler.',
        pipelineRules(pipeline),
        'Copy every hint exactly into the details field of the same name. ai_generated.confidence says how well the description supports the profile (0 to 1); ai_generated.rationale explains it in a few sentences.',
      ].join(' '),
    },
    {
      role: 'user',
      content: JSON.stringify({
        description: input.description,
        name: input.name,
        type: input.type,
        category: input.category,
        pipeline_type: pipeline,
        hints: input.hints ?? {},
      }),
    },
  ];
}

export function personaProfileFromReply(reply: Record<string, unknown>, input: PersonaGenerationInput): GeneratedPersona {
  const pipeline = input.pipeline_type ?? 'north_star';
  const type: PersonaType = input.type ?? (reply.type as PersonaType);
  const given = { ...(reply.details as Partial<PersonaDetails>) };
  const keep: DetailsField[] = [];
  for (const field of HINT_FIELDS) {
    const hint = input.hints?.[field];
    if (hint === undefined) continue;
    (given as Record<string, unknown>)[field] = hint;
    keep.push(field);
  }
  const details = completeDetails(given, type, pipeline, keep);
  const check = validateAgainst(contractSchema('PersonaDetails'), details);
  if (!check.valid)
    throw new EngineError('structured_output_invalid', `The generated persona details do not match the contract: ${describeErrors(check.errors)}`);
  const aiGenerated = reply.ai_generated as { confidence: number; rationale: string };
  return {
    name: input.name ?? clip(String(reply.name), 100),
    category: input.category ?? clip(String(reply.category), 100),
    description: input.description,
    type,
    pipeline_type: pipeline,
    details,
    ai_generated: { confidence: aiGenerated.confidence, rationale: clip(aiGenerated.rationale, 2000) },
  };
}
