// What the offline engine reads from a persona: first name, register (how it talks) and the items of its
// profile that best match a text (goals, pains, objections… ranked by shared word stems).
import type { EnginePersona, PersonaDetails } from '../types.js';
import { sharedStems, stemSet, type Random } from '../text/index.js';

export type Register = 'executive' | 'technical' | 'casual' | 'warm' | 'courteous' | 'plain';

// First matching rule wins; read from brand_voice_fit and tone_guardrails.
const REGISTER_RULES: ReadonlyArray<[RegExp, Register]> = [
  [/\bcourteous\b|\bpolite\b/i, 'courteous'],
  [/\btechnical\b/i, 'technical'],
  [/\bcasual\b|\binformal\b|\bcandid\b|\bslang\b/i, 'casual'],
  [/\bexecutive\b|\bnumerate\b|\bformal\b|\bfactual\b|\bevidence\b/i, 'executive'],
  [/\bwarm\b|\bfriendly\b|\bencouraging\b|\bdown to earth\b/i, 'warm'],
];

export function registerOf(details: PersonaDetails): Register {
  const text = [details.brand_voice_fit ?? '', ...details.tone_guardrails].join(' ');
  for (const [pattern, register] of REGISTER_RULES) if (pattern.test(text)) return register;
  return 'plain';
}

export function firstName(persona: EnginePersona): string {
  return (
    persona.name
      .split(/[,(–-]/)[0]
      ?.trim()
      .split(/\s+/)[0] ?? persona.name
  );
}

/** Who the persona is, as a phrase: "a Chief Financial Officer in B2B software (SaaS)" or its life stage. */
export function roleLine(details: PersonaDetails): string | null {
  if (details.role_title) return `${details.role_title}${details.industry ? ` in ${details.industry.replace(/\s*\(.*\)$/, '')}` : ''}`;
  // "Student, lives in a shared flat" → "student": the part before the first comma.
  if (details.life_stage) {
    const stage = details.life_stage.split(',')[0]?.trim() ?? details.life_stage;
    return stage.charAt(0).toLowerCase() + stage.slice(1);
  }
  return null;
}

export type ProfileList =
  | 'goals'
  | 'pains'
  | 'objections'
  | 'values'
  | 'win_factors'
  | 'proof_preferences'
  | 'proof_types'
  | 'triggers'
  | 'channels'
  | 'primary_objectives'
  | 'alternatives'
  | 'key_differentiators';

/**
 * The item of a profile list that shares most word stems with the text; on a tie (including no overlap)
 * the seeded random source decides. Items in `exclude` (already said) are passed over. Null when none is left.
 */
export function bestMatch(
  details: PersonaDetails,
  list: ProfileList,
  text: Set<string>,
  random: Random,
  exclude?: ReadonlySet<string>,
): { item: string; overlap: number } | null {
  const items = exclude ? details[list].filter((item) => !exclude.has(item)) : details[list];
  if (items.length === 0) return null;
  let best: string[] = [];
  let bestOverlap = -1;
  for (const item of items) {
    const overlap = sharedStems(stemSet(item), text).length;
    if (overlap > bestOverlap) {
      best = [item];
      bestOverlap = overlap;
    } else if (overlap === bestOverlap) best.push(item);
  }
  return { item: random.pick(best), overlap: bestOverlap };
}

/** Up to `count` items of a list, best matches first, each at most once. */
export function rankedItems(details: PersonaDetails, list: ProfileList, text: Set<string>, count: number): string[] {
  return details[list]
    .map((item, index) => ({ item, index, overlap: sharedStems(stemSet(item), text).length }))
    .sort((a, b) => b.overlap - a.overlap || a.index - b.index)
    .slice(0, count)
    .map((entry) => entry.item);
}

/** How strongly a text touches the persona: stems shared with what it wants, and with what it fears. */
export function affinity(details: PersonaDetails, text: Set<string>): { positive: number; negative: number } {
  const wants = stemSet([...details.goals, ...details.primary_objectives, ...details.win_factors, ...details.values, ...details.key_differentiators].join(' '));
  const fears = stemSet([...details.pains, ...details.objections].join(' '));
  return { positive: sharedStems(wants, text).length, negative: sharedStems(fears, text).length };
}
