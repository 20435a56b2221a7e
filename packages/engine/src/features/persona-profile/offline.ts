// The offline persona profile: deterministic composition from the description's key terms, fixed templates
// per persona type, and the closest catalog persona (for the category when none is given).
import { completeDetails, type DetailsField } from '../../catalog/pipeline.js';
import {
  advancedProfile,
  b2bProfile,
  b2cProfile,
  categoryOf,
  closestBasePersona,
  FIRST_NAMES,
  inferType,
  LAST_NAMES,
  titleCase,
  vocabulary,
} from '../../offline/persona-composition.js';
import { clamp, clip, contentWords, counted, createRandom, round, upperFirst } from '../../text/index.js';
import type { GeneratedPersona, PersonaDetails, PersonaGenerationInput, PipelineType } from '../../types.js';
import type { OfflineContext } from '../define.js';
import { ageBandOf, descriptionFacts } from '../../offline/description-facts.js';
import { HINT_FIELDS } from './hints.js';

/** A custom persona's profile composed offline from its description (the hints copied as given). */
export function offlinePersonaProfile(input: PersonaGenerationInput, { seed }: OfflineContext): GeneratedPersona {
  const pipeline: PipelineType = input.pipeline_type ?? 'north_star';
  const hints = input.hints ?? {};
  const random = createRandom('persona', seed, input.description, JSON.stringify(hints), input.name ?? '', input.type ?? '', input.category ?? '', pipeline);
  const inferred = inferType(input.description, hints);
  const type = input.type ?? inferred.type;
  const facts = descriptionFacts(input.description);
  const described = vocabulary(input.description);
  // The industry the description names leads the templates' terms ("logistics", not "regional").
  const v = facts.industry
    ? {
        ...described,
        focus: facts.industry,
        second: described.terms.find((term) => !facts.industry!.includes(term)) ?? described.second,
      }
    : described;
  const archetype = closestBasePersona(input.description, type);
  const category = input.category ?? categoryOf(`${input.description} ${hints.role_title ?? ''} ${hints.industry ?? ''}`, archetype.persona.category);
  const name = input.name ?? clip(`${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}, ${titleCase(hints.role_title ?? v.role)}`, 100);

  const given: Partial<PersonaDetails> = {
    ...(type === 'B2B' ? b2bProfile(v, random) : b2cProfile(v, random)),
    ...advancedProfile(type, v, random),
  };
  if (type === 'B2B') {
    given.role_title = titleCase(v.role);
    given.seniority = /\b(chief|cfo|ceo|cto|cio|vp|vice|head|director|founder|owner)\b/i.test(v.role)
      ? 'Senior leadership'
      : /\bmanager|lead\b/i.test(v.role)
        ? 'Manager'
        : 'Individual contributor';
    given.industry = facts.industry ? upperFirst(facts.industry) : v.terms[0] ? titleCase(v.terms[0]) : null;
    given.company_size = null;
    given.budget_authority = /\b(chief|cfo|ceo|vp|head|director|founder|owner)\b/i.test(v.role)
      ? 'Owns or co-owns the budget for this area.'
      : 'Recommends purchases; a manager signs.';
  } else {
    given.life_stage = titleCase(v.role);
    given.age_band = null;
    given.income_band = null;
    given.household_context = [clip(upperFirst(input.description), 500)];
  }
  if (facts.age !== null) given.age_band = ageBandOf(facts.age);
  // What the description says outright comes first in each list; the templates fill the rest.
  // Once the description says some outright, a template item built on a word of it ("Find shifts options that
  // fit daily life", "Save time on batches") is left out: it guessed what the description now says.
  const guessed = (entry: string) => [v.focus, v.second].some((term) => term && entry.toLowerCase().includes(term.toLowerCase()));
  const lead = (stated: string[], template: string[] | undefined) => {
    const rest = (template ?? []).filter(
      (entry) => !stated.some((said) => said.toLowerCase() === entry.toLowerCase()) && !(stated.length > 0 && guessed(entry)),
    );
    return [...stated, ...rest].slice(0, Math.max(template?.length ?? 0, stated.length));
  };
  given.pains = lead(facts.pains, given.pains);
  given.goals = lead(facts.goals, given.goals);
  // Lists no description fills keep their guesses only when it says nothing outright.
  if (facts.goals.length + facts.pains.length > 0) {
    given.primary_objectives = (given.primary_objectives ?? []).filter((entry) => !guessed(entry));
    given.triggers = (given.triggers ?? []).filter((entry) => !guessed(entry));
  }
  given.objections = lead(facts.objections, given.objections);
  given.win_factors = lead(facts.winFactors, given.win_factors);
  given.tech_stack = lead(facts.techStack, given.tech_stack);
  given.locale_scope = 'global';
  given.locale_value = null;
  given.is_localized = false;

  const keep: DetailsField[] = [];
  for (const field of HINT_FIELDS) {
    const value = hints[field];
    if (value === undefined) continue;
    (given as Record<string, unknown>)[field] = value;
    keep.push(field);
  }
  const details = completeDetails(given, type, pipeline, keep);

  const words = contentWords(input.description).length;
  const hintCount = keep.length;
  const confidence = round(
    clamp(0.3 + 0.08 * Math.min(words / 10, 4) + 0.04 * hintCount + (input.type ? 0.05 : 0) + (archetype.overlap >= 2 ? 0.05 : 0), 0.2, 0.85),
    2,
  );
  const rationale = clip(
    [
      `Composed offline from the description's key terms (${v.terms.slice(0, 4).join(', ') || 'few specific terms'}) with fixed templates for a ${type} persona and the ${pipeline} pipeline.`,
      input.type ? `Type ${type} was given.` : `Type ${type} was inferred: ${inferred.reason}.`,
      hintCount > 0 ? `${counted(hintCount, 'hint')} ${hintCount === 1 ? 'was' : 'were'} copied as given (${keep.join(', ')}).` : null,
      `Closest catalog persona: ${archetype.persona.name}.`,
      'The offline engine is a deterministic development engine, not a language model: treat this profile as a draft.',
    ]
      .filter(Boolean)
      .join(' '),
    2000,
  );

  return {
    name: name.length >= 2 ? name : `${name} persona`,
    category: clip(category, 100),
    description: input.description,
    type,
    pipeline_type: pipeline,
    details,
    ai_generated: { confidence, rationale },
  };
}
