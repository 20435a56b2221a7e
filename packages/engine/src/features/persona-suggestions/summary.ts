// What the server echoes back of a suggestions request, the same on either engine.
import { clip } from '../../text/index.js';
import type { PersonaSuggestionInput, PersonaSuggestionResult } from '../../types.js';

export function inputSummary(input: PersonaSuggestionInput): PersonaSuggestionResult['input_summary'] {
  return {
    business_description: clip(input.business_description, 500),
    target_customers: input.target_customers.slice(0, 10).map((customer) => clip(customer, 200)),
    goals: input.goals.slice(0, 10).map((goal) => clip(goal, 200)),
    sources_count: Math.min(input.sources?.length ?? 0, 10),
  };
}
