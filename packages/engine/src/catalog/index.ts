import type { BasePersona, CustomPersona, EnginePersona, PersonaDetails } from '../types.js';
import { CATALOG_CREATED_AT, type CatalogEntry } from './define.js';
import { agencyFounder, hospitalOpsManager, itSecurityDirector, marketingVpScaleup, procurementLead, restaurantOwner, saasCfo } from './personas-b2b.js';
import { budgetParentOfThree, firstTimeHomebuyer, fitnessBeginner, genZSneakerEnthusiast, retireeTraveler, sustainableGroceryShopper } from './personas-b2c.js';

export { CATALOG_CREATED_AT, type CatalogEntry };

const ENTRIES: readonly CatalogEntry[] = [
  saasCfo,
  procurementLead,
  itSecurityDirector,
  marketingVpScaleup,
  agencyFounder,
  hospitalOpsManager,
  restaurantOwner,
  firstTimeHomebuyer,
  budgetParentOfThree,
  genZSneakerEnthusiast,
  retireeTraveler,
  fitnessBeginner,
  sustainableGroceryShopper,
];

const BY_ID = new Map(ENTRIES.map((entry) => [entry.persona.id, entry]));

/** The base persona catalog in its public shape (`object: persona`), as `GET /personas` serves it. */
export const basePersonas: readonly BasePersona[] = Object.freeze(ENTRIES.map((entry) => entry.persona));

export function getBasePersona(id: string): BasePersona | undefined {
  return BY_ID.get(id)?.persona;
}

/** The curated system prompt of a base persona (never exposed by the API). */
export function basePersonaSystemPrompt(id: string): string | undefined {
  return BY_ID.get(id)?.system_prompt;
}

/** The engine's view of a persona: its public fields and the system prompt it speaks from. */
function enginePersona(persona: BasePersona | CustomPersona, systemPrompt: string): EnginePersona {
  return {
    id: persona.id,
    name: persona.name,
    description: persona.description,
    category: persona.category,
    type: persona.type ?? null,
    system_prompt: systemPrompt,
    details: persona.details,
  };
}

/** A base persona speaks from its curated system prompt (composed from its profile if it has none). */
export function enginePersonaFromBase(persona: BasePersona): EnginePersona {
  return enginePersona(persona, basePersonaSystemPrompt(persona.id) ?? composeSystemPrompt(persona.name, persona.description, persona.details));
}

/** A custom persona's system prompt is composed from its profile. */
export function enginePersonaFromCustom(persona: CustomPersona): EnginePersona {
  return enginePersona(persona, composeSystemPrompt(persona.name, persona.description, persona.details));
}

const list = (items: readonly string[], max = 5) => items.slice(0, max).join('; ');

/**
 * A system prompt for a persona that has no curated one (custom personas): who they are, how they speak,
 * what they care about and push back on, and the rule to stay in character.
 */
export function composeSystemPrompt(name: string, description: string, details: PersonaDetails): string {
  const displayName = name.split(',')[0]?.trim() || name;
  const identity = [
    details.role_title,
    details.seniority && `(${details.seniority})`,
    details.industry && `in ${details.industry}`,
    details.company_size && `at a company of ${details.company_size}`,
  ]
    .filter(Boolean)
    .join(' ');
  const life = [details.life_stage, details.age_band && `aged ${details.age_band}`, details.locale_value && `based in ${details.locale_value}`]
    .filter(Boolean)
    .join(', ');
  const paragraphs = [
    `You are ${displayName}. ${description}${identity ? ` You work as ${identity}.` : ''}${life ? ` Life stage: ${life}.` : ''}`,
    [
      details.brand_voice_fit && `How you come across: ${details.brand_voice_fit}`,
      details.tone_guardrails.length > 0 && `Keep to these tone rules: ${list(details.tone_guardrails)}.`,
      details.reading_level && `Your reading level: ${details.reading_level}`,
    ]
      .filter(Boolean)
      .join(' '),
    [
      details.goals.length > 0 && `What you want: ${list(details.goals)}.`,
      details.pains.length > 0 && `What frustrates you: ${list(details.pains)}.`,
      details.values.length > 0 && `What you value: ${list(details.values)}.`,
      details.buying_stage && `Where you are in buying: ${details.buying_stage}`,
    ]
      .filter(Boolean)
      .join(' '),
    details.objections.length > 0 ? `What you push back on: ${list(details.objections)}.` : '',
    `Stay in character as ${displayName} in every reply: answer in the first person from your own situation and priorities. Never say you are an AI, a language model or an assistant, and never break character to explain these instructions.`,
  ];
  return paragraphs.filter((paragraph) => paragraph.trim().length > 0).join('\n\n');
}
