// The offline extractor: every value comes from the transcript's own sentences. A field's cue words (its
// name, label, enum options, and a small lexicon of sales and customer-success terms) rank the sentences;
// the value is then read from the best ones as the field_type requires: numbers and amounts (digits or
// number words), dates (explicit dates, or weekdays after the meeting date), people (speakers, names,
// titles), enum options mentioned, the sentences themselves. Nothing is invented: a field whose sentences
// carry no such value is null. Scores pick the rubric level whose description shares most words with the
// evidence.
import type { MeetingSchemaField, MeetingSpeaker, MeetingTranscriptSegment } from '@persona-api/types';
import { round, stem, stemSet, words } from '../../text/index.js';
import type { FieldDraft } from './settle.js';

export interface ExtractionSentence {
  text: string;
  segment: MeetingTranscriptSegment;
  stems: Set<string>;
  question: boolean;
}

// Sales and customer-success vocabulary: a field word (stemmed) → patterns of sentences about it.
const LEXICON: Record<string, RegExp> = {
  budget: /\b(budget|spend|funding|approved|allocated|dollars|\$|€|£|price|pricing|cost)/i,
  cost: /\b(cost|price|pricing|expensive|spend|dollars|\$)/i,
  price: /\b(price|pricing|expensive|cost|discount|per seat|licen[cs]e)/i,
  author: /\b(sign(?:s|ed)? off|approv\w*|decision|decide|CFO|CEO|CTO|COO|CIO|VP|vice president|director|head of|procurement|final say)/i,
  decis: /\b(sign(?:s|ed)? off|approv\w*|decision|decide|CFO|CEO|CTO|VP|director|procurement|legal|committee)/i,
  buyer: /\b(sign(?:s|ed)? off|approv\w*|budget owner|CFO|CEO|VP|director)/i,
  econom: /\b(sign(?:s|ed)? off|approv\w*|CFO|CEO|VP|budget)/i,
  need: /\b(need|problem|pain|struggl\w*|challenge|slow|manual\w*|by hand|takes|hours|frustrat\w*|want|goal)/i,
  pain: /\b(problem|pain|struggl\w*|slow|manual\w*|by hand|takes|hours|frustrat\w*|broken|hard time)/i,
  problem: /\b(problem|issue|pain|slow|manual\w*|by hand|broken|bug)/i,
  challeng: /\b(challenge|problem|struggl\w*|hard|difficult)/i,
  timelin:
    /\b(timeline|deadline|by (?:the )?(?:end of )?\w+day|by (?:january|february|march|april|may|june|july|august|september|october|november|december)|quarter|q[1-4]|this year|next (?:week|month)|go[- ]live|launch|start|in (?:january|february|march|april|may|june|july|august|september|october|november|december))/i,
  date: /\b(january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|\d{4}-\d{2}-\d{2})/i,
  renew: /\b(renew\w*|contract|term|expir\w*)/i,
  competitor: /\b(competitor|alternative|evaluating|also looking|other vendor|switch\w* to|gong|chorus|otter|fireflies|clari|salesloft|outreach)/i,
  compet: /\b(competitor|alternative|evaluating|also looking|other vendor|switch\w* to)/i,
  objection: /\b(concern|worried|expensive|too (?:much|high|slow)|risk|not sure|hesitan\w*|blocker|security|legal|delay)/i,
  concern: /\b(concern|worried|risk|not sure|hesitan\w*|issue)/i,
  risk: /\b(risk|concern|worried|hard time|churn|cancel|delay|competitor|slow)/i,
  health: /\b(likes?|love|happy|great|slow|frustrat\w*|concern|hard time|renewal|churn|value|competitor|cancel)/i,
  sentiment: /\b(likes?|love|happy|great|slow|frustrat\w*|concern|disappoint\w*)/i,
  champion: /\b(champion|advocate|push for|excited|sponsor|on board)/i,
  metric: /\b(\d+\s?%|percent|hours|save|reduce|increase|double|faster|roi)/i,
  next: /\b(will send|i will|we will|i'll|we'll|follow up|schedule|next (?:week|step)|by (?:monday|tuesday|wednesday|thursday|friday))/i,
  step: /\b(will send|i will|we will|follow up|schedule|next step)/i,
  action: /\b(i will|we will|i'll|we'll|follow up|send|schedule)/i,
  featur: /\b(feature|wish|would love|request|missing|add|roadmap|dashboard|report|export)/i,
  request: /\b(wish|would love|request|missing|could you add|need)/i,
  feedback: /\b(likes?|love|slow|bug|broken|wish|feature|dashboard|report|export)/i,
  bug: /\b(bug|broken|slow|error|crash|outage)/i,
  user: /\b(users?|people|seats|analysts|reps|team of|employees|licen[cs]es)/i,
  seat: /\b(seats|users|licen[cs]es|people|reps|analysts)/i,
  process: /\b(process|procurement|legal|security review|approv\w*|paper|contract|steps)/i,
  secur: /\b(security|soc ?2|gdpr|compliance|review)/i,
  adopt: /\b(use|using|adoption|active|every week|daily|onboard\w*|training)/i,
  expans: /\b(expan\w*|more seats|add\w* (?:seats|users|teams)|another team|upsell|grow)/i,
  current: /\b(today|currently|spreadsheets|by hand|manual\w*|we use|our current)/i,
  solution: /\b(spreadsheets|we use|tool|platform|system|vendor)/i,
};

// Option words of common enums → sentences that mean them although the option is not said.
const OPTION_CUES: Record<string, RegExp> = {
  healthy: /\b(likes?|love|happy|great|working well|value|definitely)\b/i,
  at_risk: /\b(hard time|concern\w*|slow|frustrat\w*|evaluating a competitor|not sure|worried)\b/i,
  critical: /\b(cancel\w*|churn\w*|not renew\w*|switch\w* to|terminate)\b/i,
  positive: /\b(likes?|love|happy|great|excited|definitely)\b/i,
  negative: /\b(slow|frustrat\w*|unhappy|disappoint\w*|broken|hard time)\b/i,
  high: /\b(urgent|critical|must|asap|immediately|hard time)\b/i,
  low: /\b(nice to have|someday|not urgent|eventually)\b/i,
  price: /\b(expensive|price|pricing|cost|budget)\b/i,
  security: /\b(security|soc ?2|gdpr|compliance)\b/i,
  timing: /\b(timing|not now|next quarter|later|delay)\b/i,
  competitor: /\b(competitor|alternative|evaluating|switch\w* to)\b/i,
  integration: /\b(integrat\w*|api|salesforce|hubspot|sync)\b/i,
  performance: /\b(slow|latency|fast|speed|performance)\b/i,
  legal: /\b(legal|contract|redline\w*|procurement)\b/i,
};

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const SMALL: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  a: 1,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1_000, k: 1_000, million: 1_000_000, m: 1_000_000, billion: 1_000_000_000 };
const ORDINALS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  'twenty-first': 21,
  'twenty-second': 22,
  'twenty-third': 23,
  'twenty-fourth': 24,
  'twenty-fifth': 25,
  'twenty-sixth': 26,
  'twenty-seventh': 27,
  'twenty-eighth': 28,
  'twenty-ninth': 29,
  thirtieth: 30,
  'thirty-first': 31,
};
const CURRENCY_WORDS: [RegExp, string][] = [
  [/\$|\bdollars?\b|\busd\b|\bbucks\b/i, 'USD'],
  [/€|\beuros?\b|\beur\b/i, 'EUR'],
  [/£|\bpounds?\b|\bgbp\b/i, 'GBP'],
];
const TITLE =
  /\b(CFO|CEO|CTO|COO|CIO|CRO|CMO|VP of [A-Z][a-z]+(?: [A-Z][a-z]+)?|VP [A-Z][a-z]+|Vice President of [A-Z][a-z]+|Director of [A-Z][a-z]+|Head of [A-Z][a-z]+|[A-Z][a-z]+ Manager|General Counsel|Founder)\b/;
const FIRST_PERSON_AUTHORITY = /\b(I sign(?:s)? off|I approve|I make the (?:final )?(?:call|decision)|I own the budget|it'?s my call|I decide)\b/i;
const NEGATION = /\b(no|not|never|don't|doesn't|didn't|haven't|hasn't|won't|can't|cannot|without|none)\b/i;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;

/** The transcript's sentences, each with its segment. */
export function sentencesOf(segments: readonly MeetingTranscriptSegment[]): ExtractionSentence[] {
  return segments.flatMap((segment) =>
    (segment.text.match(/[^.!?]+[.!?]+|[^.!?]+$/g) ?? [])
      .map((text) => text.trim())
      .filter((text) => text.length > 0)
      .map((text) => ({ text, segment, stems: stemSet(text), question: text.endsWith('?') })),
  );
}

/** Cue stems and patterns of a field: its own words, its enum options, and the lexicon entries they name. */
function cuesOf(field: MeetingSchemaField): { stems: Set<string>; patterns: RegExp[] } {
  const own = `${field.name.replace(/_/g, ' ')} ${field.label}`;
  const stems = stemSet(own);
  const patterns = Object.entries(LEXICON)
    .filter(([key]) => [...stems].some((s) => s.startsWith(key) || key.startsWith(s)))
    .map(([, pattern]) => pattern);
  return { stems, patterns };
}

function relevance(sentence: ExtractionSentence, cues: { stems: Set<string>; patterns: RegExp[] }): number {
  let hits = 0;
  for (const s of cues.stems) if (sentence.stems.has(s)) hits += 1;
  for (const pattern of cues.patterns) if (pattern.test(sentence.text)) hits += 1;
  return hits;
}

/** A number said in digits ("80,000", "$80k", "2.5 million") or words ("eighty thousand"), with its text. */
export function numbersIn(text: string): { value: number; text: string }[] {
  const found: { value: number; text: string; at: number }[] = [];
  for (const match of text.matchAll(/(\d+(?:,\d{3})*(?:\.\d+)?)\s*(k|m|thousand|million|billion)?\b/gi)) {
    const base = Number(match[1]!.replace(/,/g, ''));
    const scale = match[2] ? SCALES[match[2].toLowerCase()]! : 1;
    found.push({ value: base * scale, text: match[0].trim(), at: match.index });
  }
  const tokens = [...text.matchAll(/[A-Za-z]+(?:-[A-Za-z]+)?/g)];
  for (let index = 0; index < tokens.length; ) {
    let total = 0;
    let current = 0;
    let used = 0;
    let end = index;
    while (end < tokens.length) {
      const word = tokens[end]![0].toLowerCase();
      const parts = word.split('-');
      if (parts.every((part) => SMALL[part] !== undefined) && !(word === 'a' && !SCALES[tokens[end + 1]?.[0].toLowerCase() ?? ''])) {
        current += parts.reduce((sum, part) => sum + SMALL[part]!, 0);
      } else if (SCALES[word] && word.length > 1 && (used > 0 || current > 0)) {
        if (word === 'hundred') current *= 100;
        else {
          total += current * SCALES[word]!;
          current = 0;
        }
      } else if (word === 'and' && used > 0) {
        // "two hundred and fifty"
      } else break;
      used += 1;
      end += 1;
    }
    if (used > 0 && total + current > 0) {
      const first = tokens[index]!;
      const last = tokens[end - 1]!;
      found.push({ value: total + current, text: text.slice(first.index, last.index + last[0].length), at: first.index });
      index = end;
    } else index = Math.max(end, index + 1);
  }
  return found.sort((x, y) => x.at - y.at).map(({ value, text: said }) => ({ value, text: said }));
}

const iso = (date: Date) => date.toISOString().slice(0, 10);

/** A date said in the sentence, as YYYY-MM-DD; a date without a year is the next one on or after the meeting. */
export function dateIn(text: string, meetingDate: string): string | null {
  const reference = new Date(`${meetingDate}T00:00:00Z`);
  const explicit = text.match(/\b(\d{4})-(\d{2})-(\d{2})\b/);
  if (explicit) return explicit[0];
  const monthNames = MONTHS.join('|');
  const dayWord = `(\\d{1,2})(?:st|nd|rd|th)?|(${Object.keys(ORDINALS).join('|')})`;
  const monthFirst = new RegExp(`\\b(${monthNames})\\s+(?:the\\s+)?(?:${dayWord})\\b(?:,?\\s+(\\d{4}))?`, 'i').exec(text);
  const dayFirst = new RegExp(`\\b(?:the\\s+)?(?:${dayWord})\\s+(?:of\\s+)?(${monthNames})\\b(?:,?\\s+(\\d{4}))?`, 'i').exec(text);
  const parts = monthFirst
    ? { month: monthFirst[1]!, day: monthFirst[2] ?? monthFirst[3]!, year: monthFirst[4] }
    : dayFirst
      ? { month: dayFirst[3]!, day: dayFirst[1] ?? dayFirst[2]!, year: dayFirst[4] }
      : null;
  if (parts) {
    const month = MONTHS.indexOf(parts.month.toLowerCase());
    const day = /^\d+$/.test(parts.day) ? Number(parts.day) : (ORDINALS[parts.day.toLowerCase()] ?? 0);
    if (day < 1 || day > 31) return null;
    let year = parts.year ? Number(parts.year) : reference.getUTCFullYear();
    let date = new Date(Date.UTC(year, month, day));
    if (!parts.year && date < reference) date = new Date(Date.UTC((year += 1), month, day));
    return date.getUTCMonth() === month ? iso(date) : null;
  }
  const weekday = new RegExp(`\\b(?:by|on|this|next|until)\\s+(${WEEKDAYS.join('|')})\\b`, 'i').exec(text);
  if (weekday) {
    const target = WEEKDAYS.indexOf(weekday[1]!.toLowerCase());
    const ahead = (target - reference.getUTCDay() + 7) % 7 || 7;
    return iso(new Date(reference.getTime() + ahead * 86_400_000));
  }
  return null;
}

function currencyIn(text: string, moneyContext: boolean): { amount: number; currency: string } | null {
  const marked = CURRENCY_WORDS.find(([pattern]) => pattern.test(text));
  if (!marked && !moneyContext) return null;
  const numbers = numbersIn(text).filter((number) => number.value >= (marked ? 1 : 1000));
  const largest = numbers.sort((x, y) => y.value - x.value)[0];
  return largest ? { amount: largest.value, currency: marked?.[1] ?? 'USD' } : null;
}

function personIn(
  sentence: ExtractionSentence,
  speakers: readonly MeetingSpeaker[],
): { name: string; title: string | null; email: string | null; speaker_id: string | null } | null {
  const title = sentence.text.match(TITLE)?.[1] ?? null;
  const email = sentence.text.match(EMAIL)?.[0] ?? null;
  const mentioned = speakers.find(
    (speaker) => speaker.id !== sentence.segment.speaker_id && new RegExp(`\\b${speaker.name.split(' ')[0]!.replace(/[^\w]/g, '')}\\b`).test(sentence.text),
  );
  if (mentioned) return { name: mentioned.name, title, email, speaker_id: mentioned.id };
  if (FIRST_PERSON_AUTHORITY.test(sentence.text)) return { name: sentence.segment.speaker, title, email, speaker_id: sentence.segment.speaker_id };
  const named = sentence.text.slice(1).match(/\b([A-Z][a-z]+ [A-Z][a-z]+)\b/)?.[1];
  if (named && !TITLE.test(named)) return { name: named, title, email, speaker_id: null };
  if (title) return { name: title, title, email, speaker_id: null };
  return null;
}

function optionHits(option: string, text: string): number {
  const optionWords = option
    .toLowerCase()
    .split(/[_\s-]+/)
    .filter((word) => word.length > 0);
  const phrase = new RegExp(`\\b${optionWords.map((word) => word.replace(/[^\w]/g, '')).join('[\\s_-]+')}\\b`, 'i');
  let hits = phrase.test(text) ? 2 : 0;
  const cue = OPTION_CUES[option.toLowerCase()] ?? OPTION_CUES[stem(optionWords[0] ?? '')];
  if (cue?.test(text)) hits += 1;
  return hits;
}

/** The rubric level whose description shares most words with the evidence (the middle level when none does). */
function scoreAgainstRubric(field: MeetingSchemaField, evidence: string): { score: number; rationale: string } {
  const criteria = [...(field.scoring_rubric.criteria ?? [])].sort((a, b) => a.score - b.score);
  const max = field.scoring_rubric.max_score ?? 0;
  const evidenceStems = stemSet(evidence);
  const negated = NEGATION.test(evidence);
  let best: { score: number; description: string; shared: string[] } | null = null;
  for (const criterion of criteria) {
    const descriptionWords = words(criterion.description).filter((word) => word.length >= 3);
    const shared = [...new Set(descriptionWords.filter((word) => evidenceStems.has(stem(word))))];
    // Levels that describe an absence ("no budget", "not discussed") fit evidence that says no.
    const fitsNegation = NEGATION.test(criterion.description) === negated ? 0.5 : 0;
    const weight = shared.length + fitsNegation;
    if (!best || weight > best.shared.length + (NEGATION.test(best.description) === negated ? 0.5 : 0)) {
      best = { score: criterion.score, description: criterion.description, shared };
    }
  }
  if (!best || best.shared.length === 0) {
    const middle = criteria[Math.floor(criteria.length / 2)];
    const score = Math.min(max, middle?.score ?? round(max / 2));
    return { score, rationale: `The evidence matches no rubric level by its words; the middle level (${score} of ${max}) was given.` };
  }
  return {
    score: Math.min(max, best.score),
    rationale: `Closest rubric level (${Math.min(max, best.score)} of ${max}): "${best.description}" — the evidence shares ${best.shared.map((word) => `"${word}"`).join(', ')}.`,
  };
}

const confidenceOf = (hits: number) => round(Math.min(0.9, 0.35 + 0.12 * hits), 2);

/** One field, read from the sentences. */
export function extractField(
  field: MeetingSchemaField,
  sentences: readonly ExtractionSentence[],
  speakers: readonly MeetingSpeaker[],
  meetingDate: string,
): FieldDraft & { evidence_quotes: string[] } {
  const cues = cuesOf(field);
  const ranked = sentences
    .filter((sentence) => !sentence.question)
    .map((sentence) => ({ sentence, hits: relevance(sentence, cues) }))
    .filter((entry) => entry.hits > 0)
    .sort((x, y) => y.hits - x.hits || x.sentence.segment.start - y.sentence.segment.start);
  const notFound = { field_name: field.name, value: null, evidence_quotes: [] as string[] };
  let picked: { value: unknown; used: ExtractionSentence[]; hits: number } | null = null;
  const first = <T>(read: (sentence: ExtractionSentence) => T | null) => {
    for (const { sentence, hits } of ranked) {
      const value = read(sentence);
      if (value !== null) return { value, used: [sentence], hits };
    }
    return null;
  };
  switch (field.field_type) {
    case 'text':
      picked = ranked[0] ? { value: ranked[0].sentence.text, used: [ranked[0].sentence], hits: ranked[0].hits } : null;
      break;
    case 'long_text': {
      const top = ranked.slice(0, 3).map((entry) => entry.sentence);
      const ordered = [...top].sort((x, y) => x.segment.start - y.segment.start);
      picked = top.length > 0 ? { value: ordered.map((sentence) => sentence.text).join(' '), used: top, hits: ranked[0]!.hits } : null;
      break;
    }
    case 'number': {
      // A number said next to one of the field's words ("45 reps") beats one elsewhere ("four hours").
      let best: { value: number; used: ExtractionSentence[]; hits: number; next: number } | null = null;
      for (const { sentence, hits } of ranked) {
        for (const number of numbersIn(sentence.text)) {
          const after = sentence.text.slice(sentence.text.indexOf(number.text) + number.text.length).trim();
          const nextWords = words(after).slice(0, 2);
          const next = nextWords.some((word) => cues.stems.has(stem(word))) ? 1 : 0;
          if (!best || next > best.next || (next === best.next && hits > best.hits)) best = { value: number.value, used: [sentence], hits, next };
        }
      }
      picked = best;
      break;
    }
    case 'currency':
      picked = first((sentence) => currencyIn(sentence.text, cues.patterns.length > 0));
      break;
    case 'date':
      picked = first((sentence) => dateIn(sentence.text, meetingDate));
      break;
    case 'boolean':
      picked = ranked[0] ? { value: !NEGATION.test(ranked[0].sentence.text), used: [ranked[0].sentence], hits: ranked[0].hits } : null;
      break;
    case 'person':
      picked = first((sentence) => personIn(sentence, speakers));
      break;
    case 'enum':
    case 'multi_enum': {
      // Options are looked for in the field's sentences, or anywhere when the field's words appear nowhere.
      const pool = ranked.length > 0 ? ranked.map((entry) => entry.sentence) : sentences.filter((sentence) => !sentence.question);
      // What the other side says counts double: the host is usually the one selling or managing the account.
      const hosts = new Set(speakers.filter((speaker) => speaker.is_host).map((speaker) => speaker.id));
      const weightOf = (sentence: ExtractionSentence) => (hosts.size > 0 && !hosts.has(sentence.segment.speaker_id) ? 2 : 1);
      const tally = field.enum_options
        .map((option) => {
          const hitting = pool.filter((sentence) => optionHits(option, sentence.text) > 0);
          return { option, hits: hitting.reduce((sum, sentence) => sum + optionHits(option, sentence.text) * weightOf(sentence), 0), used: hitting };
        })
        .filter((entry) => entry.hits > 0)
        .sort((x, y) => y.hits - x.hits);
      if (tally.length === 0) break;
      if (field.field_type === 'enum') picked = { value: tally[0]!.option, used: tally[0]!.used.slice(0, 3), hits: tally[0]!.hits };
      else picked = { value: tally.map((entry) => entry.option), used: tally.flatMap((entry) => entry.used.slice(0, 2)), hits: tally[0]!.hits };
      break;
    }
    case 'list': {
      const items = ranked.slice(0, 10).map((entry) => entry.sentence);
      const ordered = [...items].sort((x, y) => x.segment.start - y.segment.start);
      picked = items.length > 0 ? { value: ordered.map((sentence) => sentence.text), used: items, hits: ranked[0]!.hits } : null;
      break;
    }
  }
  if (!picked) return notFound;
  const quote = picked.used[0]!.text;
  const draft: FieldDraft & { evidence_quotes: string[] } = {
    field_name: field.name,
    value: picked.value,
    quote,
    confidence: confidenceOf(picked.hits),
    evidence_quotes: [...new Set(picked.used.map((sentence) => sentence.text))],
  };
  if (field.scoring_enabled) {
    const { score, rationale } = scoreAgainstRubric(field, picked.used.map((sentence) => sentence.text).join(' '));
    draft.score = score;
    draft.score_rationale = rationale;
  }
  return draft;
}
