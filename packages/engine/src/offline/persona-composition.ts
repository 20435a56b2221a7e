// Offline persona composition shared by the persona-profile and persona-suggestions features: deterministic
// composition from a description's key terms, fixed templates per persona type, and the closest catalog
// persona (for the category when none is given).
import { isBusinessDescriptor } from './description-facts.js';
import { basePersonas } from '../catalog/index.js';
import {
  clip,
  contentWords,
  counted,
  isCommonVerb,
  isTopicalStem,
  keywords,
  round,
  sentences,
  sharedStems,
  stem,
  stemSet,
  type Random,
} from '../text/index.js';
import type { BasePersona, PersonaCreateHints, PersonaDetails, PersonaType } from '../types.js';

const B2B_CUES = [
  'compani',
  'busi',
  'team',
  'manag',
  'director',
  'head',
  'vp',
  'chief',
  'cfo',
  'cto',
  'ceo',
  'cio',
  'ciso',
  'founder',
  'procur',
  'enterpris',
  'saa',
  'b2b',
  'agenc',
  'firm',
  'startup',
  'clinic',
  'hospit',
  'depart',
  'vendor',
  'employe',
  'staff',
  'sale',
  'market',
  'offic',
  'lead',
  'engin',
  'analyst',
  'consult',
  'oper',
  'owner',
  'restaur',
  'practic',
  'organ',
  'buyer',
  'admin',
  'it',
  'secur',
  'financ',
  'hr',
  'recruit',
  'wholesal',
  'retail',
  'store',
];
const B2C_CUES = [
  'parent',
  'mom',
  'mum',
  'mother',
  'father',
  'dad',
  'famili',
  'student',
  'retir',
  'teen',
  'shopper',
  'consum',
  'homebuy',
  'hobbi',
  'enthusiast',
  'fan',
  'travel',
  'gamer',
  'kid',
  'children',
  'household',
  'person',
  'individu',
  'love',
  'beginn',
  'couple',
  'single',
  'grandpar',
  'young',
  'adult',
  'hous',
  'pet',
  'owner',
  'patient',
  'commut',
  'renter',
  'cook',
  'runner',
];

const CATEGORY_RULES: ReadonlyArray<[RegExp, string]> = [
  [/\b(cfo|financ|account|controller|fp&a|treasur|audit)/i, 'Finance'],
  [/\b(logistic|freight|fleet|truck|haulage|warehous|dispatch|last[- ]mile)/i, 'Operations & Logistics'],
  [/\b(procure|sourcing|purchas|buyer|supply chain)/i, 'Procurement'],
  [/\b(security|ciso|it director|cio|cto|devops|engineer|developer|infrastructure)/i, 'IT & Security'],
  [/\b(marketing|brand|growth|demand gen|content|seo)/i, 'Marketing'],
  [/\b(sales|account executive|revenue|sdr|bdr)/i, 'Sales'],
  [/\b(hospital|clinic|nurse|doctor|physician|health ?care|patient|dentist|pharma)/i, 'Healthcare'],
  [/\b(hr|human resources|recruit|talent|people ops)/i, 'Human Resources'],
  [/\b(founder|owner|entrepreneur|small business|agency)/i, 'Founders & Small Business'],
  [/\b(restaurant|chef|caf[eé]|bar|hospitality|hotel)/i, 'Food & Hospitality'],
  [/\b(parent|mom|mum|mother|father|dad|kids|children|family)/i, 'Parents'],
  [/\b(home ?buyer|mortgage|real estate|house|apartment|renter|landlord)/i, 'Home & Property'],
  [/\b(travel|trip|vacation|holiday|tourism)/i, 'Travel'],
  [/\b(fitness|gym|workout|running|health|wellness|diet)/i, 'Health & Fitness'],
  [/\b(sneaker|fashion|streetwear|clothing|apparel|beauty)/i, 'Fashion & Streetwear'],
  [/\b(sustainab|eco|green|organic|climate|zero[- ]waste)/i, 'Sustainability'],
  [/\b(student|school|university|college|education|teacher|learn)/i, 'Education'],
  [/\b(gam(e|er|ing)|esports)/i, 'Gaming'],
  [/\b(retire|senior|pension)/i, 'Retirement'],
];

export const FIRST_NAMES = [
  'Alex',
  'Jordan',
  'Taylor',
  'Morgan',
  'Casey',
  'Riley',
  'Jamie',
  'Avery',
  'Robin',
  'Sasha',
  'Noor',
  'Leila',
  'Mateo',
  'Ines',
  'Kenji',
  'Amara',
  'Tomás',
  'Freya',
  'Omar',
  'Lena',
];
export const LAST_NAMES = [
  'Ellis',
  'Moreau',
  'Kowalski',
  'Nakamura',
  'Okafor',
  'Lindqvist',
  'Haddad',
  'Brennan',
  'Costa',
  'Varga',
  'Mensah',
  'Reyes',
  'Fischer',
  'Dubois',
  'Park',
  'Shah',
];

function cueScore(text: string, cues: readonly string[]): number {
  const stems = contentWords(text)
    .concat(text.toLowerCase().match(/\b(it|hr|vp|cfo|cto|ceo|cio|b2b|mom|mum|dad|kid)\b/g) ?? [])
    .map(stem);
  return stems.filter((s) => cues.some((cue) => s === cue || (cue.length >= 4 && s.startsWith(cue)))).length;
}

export function inferType(text: string, hints: PersonaCreateHints | undefined): { type: PersonaType; reason: string } {
  if (hints && (hints.role_title || hints.seniority || hints.industry || hints.company_size))
    return { type: 'B2B', reason: 'the hints name a role or company' };
  if (hints && (hints.life_stage || hints.age_band || hints.income_band)) return { type: 'B2C', reason: 'the hints describe a household' };
  const b2b = cueScore(text, B2B_CUES);
  const b2c = cueScore(text, B2C_CUES);
  return b2b > b2c
    ? { type: 'B2B', reason: `the description reads as a work role (${counted(b2b, 'business cue')} against ${b2c} personal)` }
    : { type: 'B2C', reason: `the description reads as a private buyer (${counted(b2c, 'personal cue')} against ${b2b} business)` };
}

export function categoryOf(text: string, fallback: string): string {
  return CATEGORY_RULES.find(([pattern]) => pattern.test(text))?.[1] ?? fallback;
}

/** The catalog persona closest to a text (shared stems with its name, description and role), preferring the same type. */
export function closestBasePersona(text: string, type: PersonaType | null): { persona: BasePersona; overlap: number } {
  const stems = stemSet(text);
  let best: { persona: BasePersona; overlap: number } | null = null;
  for (const persona of basePersonas) {
    const own = stemSet(`${persona.name} ${persona.category} ${persona.description} ${persona.details.role_title ?? ''} ${persona.details.life_stage ?? ''}`);
    const overlap = sharedStems(own, stems).length + (type && persona.type === type ? 0.5 : 0);
    if (!best || overlap > best.overlap) best = { persona, overlap };
  }
  return best as { persona: BasePersona; overlap: number };
}

/** "A procurement manager at a logistics firm who…" → "procurement manager". */
export function rolePhrase(description: string): string {
  const first = description.split(/[.;:!?\n]/)[0] ?? description;
  const stripped = first
    .replace(/^\s*(i am|i'm|we are|they are|she is|he is|this is|meet)\s+/i, '')
    .replace(/^\s*(a|an|the|our|my)\s+/i, '')
    // An age is no part of a role ("45-year-old operations director").
    .replace(/^\d{2}[- ]year[- ]old\s+/i, '');
  const words = stripped.split(/\s+/).filter(Boolean);
  const stop = words.findIndex(
    (word, index) => index > 0 && /^(at|in|of|for|who|that|which|with|from|working|living|based|running|and|,)$/i.test(word.replace(/,$/, '')),
  );
  const role = words
    .slice(0, stop > 0 ? Math.min(stop, 5) : Math.min(words.length, 4))
    .join(' ')
    .replace(/[,]+$/, '');
  return role.length >= 2 ? role : 'customer';
}

// Short function words stay lower-case inside a title ("Budget Holder for Operations Directors").
const TITLE_SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to', 'with']);

export function titleCase(text: string): string {
  return text.replace(/\b([a-z])([a-z]*)/g, (word: string, first: string, rest: string, offset: number) =>
    offset > 0 && TITLE_SMALL_WORDS.has(word) ? word : first.toUpperCase() + rest,
  );
}

export interface Vocabulary {
  role: string;
  focus: string;
  second: string;
  terms: string[];
}

/** Bounds on the words a description lends to templates, so no composed field outgrows its contract bound (500). */
const ROLE_MAX = 80;
const TERM_MAX = 40;

export function vocabulary(description: string): Vocabulary {
  const role = clip(rolePhrase(description), ROLE_MAX);
  const roleStems = stemSet(role);
  // A place or a name the description capitalises mid-sentence ("a nurse in Manchester") is where the
  // persona is, not a subject: "Find manchester options that fit daily life" was a goal.
  const names = new Set(sentences(description).flatMap((line) => (line.match(/(?<=\s)\p{Lu}\p{Ll}+/gu) ?? []).map((word) => word.toLowerCase())));
  // The word that opens a clause about the persona is its verb: "who works night shifts, cooks in batches,
  // … and hates subscription apps" (works, cooks, hates), "…, distrusts vendors".
  const clauseVerbs = new Set([...description.matchAll(/(?:\bwho|,|\band|\bbut)\s+(\p{Ll}+s)\b/gu)].map((match) => match[1]!));
  const terms = keywords(description, 16)
    // "45-year-old", "300" are no subject a template can be about; nor "night" of "night shifts".
    .filter(
      (term) =>
        !roleStems.has(stem(term)) &&
        !/\d/.test(term) &&
        !isCommonVerb(term) &&
        !isBusinessDescriptor(term) &&
        !names.has(term.toLowerCase()) &&
        !clauseVerbs.has(term.toLowerCase()) &&
        term.split(/\s+/).every((word) => isTopicalStem(stem(word))),
    )
    .map((term) => clip(term, TERM_MAX))
    .slice(0, 8);
  return { role, focus: terms[0] ?? 'their work', second: terms[1] ?? 'everyday tasks', terms };
}

export function b2bProfile(v: Vocabulary, random: Random): Partial<PersonaDetails> {
  const { focus, second } = v;
  return {
    primary_use_case: `Getting better results in ${focus} with less manual effort and clearer numbers.`,
    buying_stage: random.pick([
      'Awareness: has noticed the problem and is reading up on options.',
      'Consideration: comparing a shortlist of options.',
      'Decision: building the case for one option.',
    ]),
    decision_role: random.pick([
      'Economic buyer who signs off on the budget.',
      'Champion who builds the case for the purchase.',
      'Influencer whose recommendation carries weight.',
      'Day-to-day user whose adoption decides success.',
    ]),
    brand_voice_fit: 'Professional and concrete: specific outcomes, numbers and no hype.',
    reading_level: 'Professional; skims summaries and reads details when they matter.',
    purchase_cadence: 'Reviews tools and suppliers in this area once or twice a year.',
    role_segment: [titleCase(v.role), 'Business buyer'],
    primary_objectives: [`Improve ${focus} outcomes this year`, `Reduce time spent on ${second}`, 'Show measurable results to leadership'],
    goals: [`Make ${focus} more predictable`, `Spend less time on ${second}`, 'Get reliable data for decisions', 'Work with tools the team actually adopts'],
    pains: [
      `Manual work around ${focus}`,
      `Too many disconnected tools for ${second}`,
      'Vendors who overpromise and underdeliver',
      'Little time to evaluate new options',
    ],
    triggers: [`A missed target in ${focus}`, 'A new budget cycle', 'A change in leadership or priorities', 'A renewal of the current solution'],
    channels: ['LinkedIn', 'Peer recommendations', 'Industry newsletters and events', 'Review sites (G2, Capterra)'],
    objections: [
      'We already have something that mostly works',
      'What will this really cost us over three years?',
      'Who on my team has time to implement it?',
      'Show me proof from a company like ours',
    ],
    values: ['Reliability', 'Clarity', 'Accountability', 'Efficiency'],
    tone_guardrails: ['Be specific and lead with outcomes', 'No buzzwords or hype', 'Respect their time'],
    tech_stack: ['Microsoft 365 or Google Workspace', 'A CRM or ERP', 'Slack or Teams', 'Spreadsheets'],
    proof_types: ['Case studies from similar companies', 'ROI estimate with their numbers', 'Product trial', 'Independent reviews'],
    alternatives: ['Keep the current process', 'Build it in-house', 'A larger incumbent suite', 'Hire more people'],
    win_factors: ['Clear value within weeks', 'Transparent pricing', 'Easy integration', 'Responsive support'],
    proof_preferences: ['Short case study', 'Live demo with their data', 'Reference call'],
    procurement_constraints: ['Budget approval above a threshold', 'Security and legal review', 'Preference for annual terms with an exit'],
    committee_mapping: ['Finance: cost and payback', 'IT: integration and security', 'End users: ease of use'],
    key_differentiators: ['Fast time to value', 'Fits the existing tools', 'Predictable pricing'],
    regulatory_context: ['Data-protection law (GDPR or local equivalent)'],
    local_channels: [],
    local_objections: [],
    local_keywords: [`${focus} software`, `${focus} solution`, `${second} tool`].map((term) => clip(term, 100)),
    price_sensitivity_delta: round(random.next() * 0.8 - 0.2, 2),
  };
}

export function b2cProfile(v: Vocabulary, random: Random): Partial<PersonaDetails> {
  const { focus, second } = v;
  return {
    primary_use_case: `Making good everyday choices about ${focus} without wasting time or money.`,
    buying_stage: random.pick([
      'Awareness: starting to look around.',
      'Consideration: comparing a few options.',
      'Decision: ready to buy when the offer is right.',
    ]),
    decision_role: random.pick(['Sole decision maker.', 'Main decision maker for the household.', 'Decides together with a partner.']),
    brand_voice_fit: 'Friendly and plain: honest, clear and never pushy.',
    reading_level: 'General (grade 8); reads on a phone in short bursts.',
    purchase_cadence: 'Buys in this category a few times a year.',
    role_segment: [titleCase(v.role), 'Consumer'],
    primary_objectives: [`Get good value on ${focus}`, `Spend less time on ${second}`, 'Feel confident about the choice'],
    goals: [`Find ${focus} options that fit daily life`, 'Avoid wasting money', `Save time on ${second}`, 'Buy from brands that are honest'],
    pains: ['Hidden costs and surprise fees', `Confusing choices around ${focus}`, 'Products that do not last', 'Pushy marketing'],
    triggers: [
      'A recommendation from a friend',
      'A good deal or seasonal sale',
      `A change in routine affecting ${focus}`,
      'A bad experience with the current option',
    ],
    channels: ['Instagram and TikTok', 'YouTube reviews', 'Friends and family', 'Search and review sites'],
    objections: ['Is it really worth the price?', 'What is the catch?', 'Can I return it easily?', 'I have been disappointed before'],
    values: ['Value for money', 'Honesty', 'Convenience', 'Quality'],
    tone_guardrails: ['Friendly and clear', 'Show the price early', 'No pressure tactics'],
    life_stage: null,
    household_context: [],
    lifestyle_affinities: v.terms.slice(0, 3).map((term) => titleCase(term)),
    proof_types: ['Customer reviews', 'Money-back guarantee', 'Recommendations from people like them'],
    alternatives: ['Keep the current option', 'A cheaper alternative', 'Do without'],
    win_factors: ['Clear total price', 'Easy returns', 'Good reviews'],
    proof_preferences: ['Star ratings', 'Short video reviews', 'Guarantees'],
    key_differentiators: ['Transparent pricing', 'Quality that lasts', 'Convenience'],
    regulatory_context: ['Consumer-protection and return rights'],
    local_channels: [],
    local_objections: [],
    local_keywords: [`best ${focus}`, `${focus} reviews`, `affordable ${second}`].map((term) => clip(term, 100)),
    price_sensitivity_delta: round(random.next() * 0.8, 2),
  };
}

export function weights(criteria: readonly string[], random: Random): Record<string, number> {
  const raw = criteria.map(() => 10 + random.int(21));
  const total = raw.reduce((sum, value) => sum + value, 0);
  const out: Record<string, number> = {};
  let assigned = 0;
  criteria.forEach((criterion, index) => {
    const value = index === criteria.length - 1 ? round(1 - assigned, 2) : round((raw[index] ?? 0) / total, 2);
    out[criterion] = value;
    assigned = round(assigned + value, 2);
  });
  return out;
}

export function advancedProfile(type: PersonaType, v: Vocabulary, random: Random): Partial<PersonaDetails> {
  const criteria =
    type === 'B2B'
      ? ['total_cost', 'time_to_value', 'integration_fit', 'vendor_reliability', 'risk_and_compliance']
      : ['price', 'quality', 'convenience', 'trust', 'experience'];
  return {
    mcda_weights: weights(criteria, random),
    purpose_packs_enabled: { objection_handling: true, social_media: type === 'B2C', pricing_research: true, content_ideas: true },
    acquisition_config: {
      preferred_offer: type === 'B2B' ? 'Trial or pilot with clear success metrics' : 'First-order discount',
      cta_style: type === 'B2B' ? 'Book a short demo' : 'See the price',
      avoid_channels: ['cold calls'],
    },
    pmm_config: {
      positioning_angle: clip(`Better ${v.focus} with less effort`, 200),
      proof_priority: ['reviews', 'case_study', 'trial'],
      message_pillars: ['value', 'simplicity', 'trust'],
    },
    content_config: {
      preferred_formats: type === 'B2B' ? ['case study', 'one-pager', 'demo video'] : ['short video', 'comparison', 'reviews'],
      max_reading_minutes: type === 'B2B' ? 6 : 3,
      include_numbers: true,
      tone: type === 'B2B' ? 'professional' : 'friendly',
    },
    sales_config: {
      discovery_questions: [clip(`How do you handle ${v.focus} today?`, 200), 'What would make you switch?'],
      deal_cycle_days: type === 'B2B' ? 60 : 14,
      requires_business_case: type === 'B2B',
    },
    research_config: {
      response_style: type === 'B2B' ? 'concise and specific' : 'friendly and candid',
      skepticism_level: round(0.4 + random.next() * 0.4, 2),
      focus_areas: v.terms.slice(0, 3),
    },
  };
}
