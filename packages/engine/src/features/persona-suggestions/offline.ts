// Offline persona suggestions: one per named target customer (complementary roles next to the first fill
// up to three), each composed like a persona profile and scored by its overlap with the business.
import { b2bProfile, b2cProfile, categoryOf, closestBasePersona, inferType, titleCase, vocabulary } from '../../offline/persona-composition.js';
import {
  clamp,
  clip,
  contentWords,
  counted,
  createRandom,
  lowerFirst,
  round,
  sentences,
  sharedStems,
  stableId,
  stem,
  stemSet,
  upperFirst,
} from '../../text/index.js';
import type { PersonaSuggestion, PersonaSuggestionInput, PersonaSuggestionResult } from '../../types.js';
import type { OfflineContext } from '../define.js';
import { inputSummary } from './summary.js';

const STAGES = ['Consideration', 'Awareness', 'Decision', 'Consideration', 'Awareness', 'Decision'];
const B2B_ROLES = ['Economic buyer', 'Champion', 'End user', 'Influencer', 'Technical evaluator', 'Gatekeeper'];
const B2C_ROLES = ['Primary buyer', 'Household decision maker', 'Influencer among friends', 'Gift buyer', 'Repeat buyer', 'First-time buyer'];
// A complementary role beside the first target customer, and the decision role it plays.
const COMPLEMENTS_B2B: ReadonlyArray<[string, string]> = [
  ['Budget holder for', 'Economic buyer'],
  ['Day-to-day user among', 'End user'],
  ['Technical evaluator for', 'Technical evaluator'],
];
const COMPLEMENTS_B2C: ReadonlyArray<[string, string]> = [
  ['Budget-minded', 'Primary buyer'],
  ['Early adopter among', 'Influencer among friends'],
  ['Loyal repeat buyer among', 'Repeat buyer'],
];

/** 3 to 6 personas composed offline from the target customers (complementary roles fill up to 3), best fit first. */
export function offlinePersonaSuggestions(input: PersonaSuggestionInput, { seed }: OfflineContext): PersonaSuggestionResult {
  const sourcesText = (input.sources ?? []).map((source) => source.text).join('\n');
  const business = `${input.business_description}\n${sourcesText}`;
  const businessStems = stemSet(business);
  const customers = input.target_customers
    .slice(0, 6)
    .map((customer) => customer.trim())
    .filter((customer) => customer.length > 0);
  const candidates: Array<{ label: string; base: string; complement: boolean; role?: string }> = customers.map((customer) => ({
    label: customer,
    base: customer,
    complement: false,
  }));
  const lead = customers[0] ?? 'customers';
  const leadType = inferType(`${lead} ${input.business_description}`, undefined).type;
  const complements = leadType === 'B2B' ? COMPLEMENTS_B2B : COMPLEMENTS_B2C;
  for (let index = 0; candidates.length < 3; index += 1) {
    const [prefix, role] = complements[index % complements.length]!;
    // "Budget-minded young families", not "Budget-minded Young families".
    candidates.push({ label: `${prefix} ${lowerFirst(lead)}`, base: lead, complement: true, role });
  }

  const goals = input.goals.slice(0, 10);
  const suggestions: Array<PersonaSuggestion & { order: number }> = candidates.map((candidate, index) => {
    const random = createRandom('suggestion', seed, input.business_description, candidate.label, index);
    const type = inferType(`${candidate.label} ${input.business_description}`, undefined).type;
    const v = vocabulary(`${candidate.base} ${input.business_description}`);
    const archetype = closestBasePersona(`${candidate.label} ${input.business_description}`, type);
    const overlap = sharedStems(stemSet(candidate.base), businessStems).length;
    const confidence = round(
      clamp(
        0.55 +
          0.06 * overlap +
          (archetype.overlap >= 2 ? 0.05 : 0) -
          (candidate.complement ? 0.12 : 0) -
          0.02 * index +
          0.03 * Math.min(input.sources?.length ?? 0, 3),
        0.2,
        0.95,
      ),
      2,
    );
    const profile = type === 'B2B' ? b2bProfile(v, random) : b2cProfile(v, random);
    const goalLine = goals[0]
      ? goals
          .map((goal) => lowerFirst(goal.replace(/[.]$/, '')))
          .slice(0, 2)
          .join(' and ')
      : 'grow';
    // The words this candidate shares with the business, named as counted (was "1 key term (greenbox, weekly, boxes)").
    const content = new Set(contentWords(candidate.base));
    const shared = [
      ...new Set((candidate.base.match(/[\p{L}\p{N}'’-]+/gu) ?? []).filter((word) => content.has(word.toLowerCase()) && businessStems.has(stem(word)))),
    ];
    const name = clip(titleCase(candidate.label), 100);
    return {
      order: index,
      id: stableId('psug_', seed, input.business_description, candidate.label, index),
      object: 'persona_suggestion',
      name: name.length >= 2 ? name : `${name} buyer`,
      category: clip(categoryOf(`${candidate.label} ${input.business_description}`, archetype.persona.category), 100),
      // The business in its own words, quoted: spliced into a clause of ours it read "a business that Fleetwise sells …".
      description: clip(
        `${upperFirst(candidate.label)} as customers of this business: “${clip(sentences(input.business_description)[0] ?? input.business_description, 400)}” They care most about ${v.focus} and ${v.second}.`,
        2000,
      ),
      buying_stage: STAGES[index % STAGES.length] ?? 'Consideration',
      decision_role: candidate.role ?? (type === 'B2B' ? B2B_ROLES : B2C_ROLES)[index % 6] ?? 'Buyer',
      rationale: clip(
        `Fits the goal to ${goalLine.charAt(0).toLowerCase()}${goalLine.slice(1)}: ${candidate.complement ? `a complementary role next to ${lead}` : 'one of the named target customers'}${overlap > 0 ? `, sharing ${counted(overlap, 'key term')} with the business description${shared.length > 0 ? ` (${shared.slice(0, 3).join(', ')})` : ''}` : ''}. Composed offline by fixed rules, not by a language model.`,
        2000,
      ),
      type,
      goals: (profile.goals ?? []).slice(0, 10),
      pains: (profile.pains ?? []).slice(0, 10),
      channels: (profile.channels ?? []).slice(0, 10),
      triggers: (profile.triggers ?? []).slice(0, 10),
      confidence,
    };
  });
  suggestions.sort((a, b) => b.confidence - a.confidence || a.order - b.order);

  return {
    data: suggestions.map(({ order: _order, ...suggestion }) => suggestion),
    input_summary: inputSummary(input),
  };
}
