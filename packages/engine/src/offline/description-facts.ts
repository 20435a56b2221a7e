// What a persona description says outright, read by cue phrases: the pressures and frustrations it names
// (pains), what the person wants or needs to do (goals), whom or what they distrust (objections), what
// anything new must do (win factors), the systems they already run, their age and their industry. The
// offline persona profile puts these first and fills the rest of each list from its templates, so a profile
// quotes its description instead of saying "Manual work around regional".
import { clip, upperFirst } from '../text/index.js';

export interface DescriptionFacts {
  pains: string[];
  goals: string[];
  objections: string[];
  winFactors: string[];
  techStack: string[];
  /** Years, when the description gives an age ("a 45-year-old …", "aged 45"). */
  age: number | null;
  /** The kind of business they work at ("at a regional logistics company" → "logistics"). */
  industry: string | null;
}

const ITEM_MAX = 120;

// A clause runs to the next comma, semicolon or sentence end, or to "and" opening another cue.
const CLAUSE = String.raw`([^,;.!?]+?)(?=\s*(?:[,;.!?]|$|\band\s+(?:is|are|has|wants|needs|hopes|distrusts|hates|struggles|worries|fears|feels|wants)\b))`;
const cue = (lead: string) => new RegExp(String.raw`\b(?:${lead})\s+${CLAUSE}`, 'gi');

const PAIN_CUES: ReadonlyArray<[RegExp, (clause: string) => string]> = [
  [cue('under (?:\\w+ )?pressure to'), (clause) => `Pressure to ${clause}`],
  [cue('struggles? with'), (clause) => `Struggling with ${clause}`],
  [cue('struggles? to'), (clause) => `Struggling to ${clause}`],
  [cue('(?:is |are )?(?:frustrated|annoyed|fed up) (?:by|with)'), (clause) => upperFirst(clause)],
  [cue('(?:is |are )?(?:worried|anxious|concerned) (?:about|that)'), (clause) => `Worry about ${clause}`],
  [cue('(?:is |are )?tired of'), (clause) => upperFirst(clause)],
  [cue('hates?'), (clause) => upperFirst(clause)],
  [cue('(?:is |are )?(?:overwhelmed|buried) (?:by|in|with)'), (clause) => `Overwhelmed by ${clause}`],
];
const GOAL_CUES: RegExp[] = [cue('(?:wants?|hopes?|aims?|plans?|is trying|is looking|needs?) to')];
const OBJECTION_CUES: ReadonlyArray<[RegExp, (clause: string) => string]> = [
  [cue("distrusts?|(?:does not|doesn't|do not|don't) trust"), (clause) => `I do not trust ${firstPerson(clause)}`],
  [cue('(?:is |are )?(?:sceptical|skeptical|wary|suspicious) of'), (clause) => `I am wary of ${firstPerson(clause)}`],
];
// "needs anything new to work with their existing TMS" → "Anything new has to work with our existing TMS".
const REQUIREMENT = new RegExp(String.raw`\bneeds?\s+(?!to\b)([^,;.!?]+?)\s+to\s+${CLAUSE}`, 'gi');
const EXISTING = /\b(?:existing|current|legacy)\s+((?:[A-Z][\w&-]*|[a-z]+)(?:\s+[A-Z][\w&-]*)?)/g;
const AGE = /\b(\d{2})[- ]year[- ]old\b|\baged\s+(\d{2})\b/i;
const WORKPLACE =
  /\bat an? ((?:[\w&-]+\s+){0,3}?)(company|firm|business|agency|startup|group|provider|operator|chain|manufacturer|retailer|bank|insurer|hospital|clinic|school|university|carrier)\b/i;
// Words that say how big or where a business is, not what it does.
const NOT_INDUSTRY =
  /^(regional|local|national|global|international|small|large|big|mid-?size[d]?|medium|growing|fast-growing|family-owned|family|public|private|leading|\d[\d,]*(?:-person|-people|-employee)?)$/i;

/** A word that says how big a business is, where, or that it is one ("regional", "company"): no subject of a template. */
export function isBusinessDescriptor(word: string): boolean {
  return NOT_INDUSTRY.test(word) || /^(company|companies|firm|business|organisation|organization|team)$/i.test(word);
}

/** "their existing TMS" → "our existing TMS": how the persona says it. */
function firstPerson(clause: string): string {
  return clause
    .replace(/\btheir\b/gi, 'our')
    .replace(/\bthem\b/gi, 'us')
    .replace(/\bthey\b/gi, 'we');
}

function clauses(pattern: RegExp, text: string): string[] {
  return [...text.matchAll(pattern)].map((match) => match[1]!.trim()).filter((clause) => clause.split(/\s+/).length >= 2);
}

export function descriptionFacts(description: string): DescriptionFacts {
  const item = (text: string) => clip(text.replace(/\s+/g, ' ').trim(), ITEM_MAX);
  const unique = (items: string[]) => [...new Map(items.map((entry) => [entry.toLowerCase(), entry])).values()];

  const pains = PAIN_CUES.flatMap(([pattern, phrase]) => clauses(pattern, description).map((clause) => item(phrase(clause))));
  const requirements = [...description.matchAll(REQUIREMENT)].map((match) => ({ what: match[1]!.trim(), must: match[2]!.trim() }));
  const goals = GOAL_CUES.flatMap((pattern) => clauses(pattern, description))
    // "needs anything new to work with …" is a requirement, read below, not a goal.
    .filter((clause) => !requirements.some((requirement) => requirement.must === clause))
    .map((clause) => item(upperFirst(firstPerson(clause))));
  const objections = [
    ...OBJECTION_CUES.flatMap(([pattern, phrase]) => clauses(pattern, description).map((clause) => item(phrase(clause)))),
    ...requirements.map(({ what, must }) => item(`${upperFirst(what)} has to ${firstPerson(must)}`)),
  ];
  // "work with their existing TMS" → "Works with the existing TMS".
  const winFactors = requirements.map(({ must }) => item(upperFirst(must.replace(/\btheir\b/gi, 'the').replace(/^(\w+)/, (verb) => `${verb}s`))));
  const techStack = [...description.matchAll(EXISTING)]
    .map((match) => item(match[1]!.trim()))
    .filter((tool) => !/^(process|setup|way|tools?|system|vendor|provider)$/i.test(tool));

  const ageMatch = AGE.exec(description);
  const age = ageMatch ? Number(ageMatch[1] ?? ageMatch[2]) : null;
  const workplace = WORKPLACE.exec(description);
  const kind =
    workplace?.[1]
      ?.trim()
      .split(/\s+/)
      .filter((word) => !NOT_INDUSTRY.test(word)) ?? [];
  return {
    pains: unique(pains),
    goals: unique(goals),
    objections: unique(objections),
    winFactors: unique(winFactors),
    techStack: unique(techStack),
    age: age !== null && age >= 13 && age <= 99 ? age : null,
    industry: kind.length > 0 ? kind.join(' ') : null,
  };
}

/** The age band a catalog persona uses ("45–54") for an age. */
export function ageBandOf(age: number): string {
  if (age < 18) return 'Under 18';
  if (age < 25) return '18–24';
  if (age >= 75) return '75+';
  const start = Math.floor((age - 5) / 10) * 10 + 5;
  return `${start}–${start + 9}`;
}
