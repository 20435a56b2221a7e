// Persona suggestions through an upstream model: a list of PersonaSuggestion (from the contract, without
// id and object, which are made here), sorted best fit first.
import { contractSchema } from '../../schema/bundle.js';
import { clip, stableId } from '../../text/index.js';
import type { JsonSchema, PersonaSuggestion, PersonaSuggestionInput, PersonaSuggestionResult } from '../../types.js';
import type { FeatureMessage } from '../define.js';
import { inputSummary } from './summary.js';

export function personaSuggestionsSchema(): JsonSchema {
  const suggestion = contractSchema('PersonaSuggestion') as { properties: Record<string, JsonSchema>; required: string[] };
  const { id: _id, object: _object, ...properties } = suggestion.properties;
  const item: JsonSchema = { type: 'object', required: suggestion.required.filter((key) => key !== 'id' && key !== 'object'), properties };
  return { type: 'object', required: ['suggestions'], properties: { suggestions: { type: 'array', minItems: 3, maxItems: 6, items: item } } };
}

export function personaSuggestionsPrompt(input: PersonaSuggestionInput): FeatureMessage[] {
  const sources = (input.sources ?? []).map((source, index) => `Source ${index + 1}${source.name ? ` (${source.name})` : ''}:\n${clip(source.text, 4000)}`);
  return [
    {
      role: 'system',
      content:
        'You suggest 3 to 6 buyer personas for a business, best fit first: distinct roles or segments, each with a concrete description, buying stage, decision role, a rationale tied to the business goals, goals, pains, channels, triggers and a confidence from 0 to 1.',
    },
    {
      role: 'user',
      content: [
        JSON.stringify({ business_description: input.business_description, target_customers: input.target_customers, goals: input.goals }),
        ...sources,
      ].join('\n\n'),
    },
  ];
}

export function personaSuggestionsFromReply(reply: Record<string, unknown>, input: PersonaSuggestionInput): PersonaSuggestionResult {
  const raw = reply.suggestions as Array<Omit<PersonaSuggestion, 'id' | 'object'>>;
  const data: PersonaSuggestion[] = raw
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.confidence - a.entry.confidence || a.index - b.index)
    .map(({ entry, index }) => ({ id: stableId('psug_', input.business_description, entry.name, index), object: 'persona_suggestion' as const, ...entry }));
  return { data, input_summary: inputSummary(input) };
}
