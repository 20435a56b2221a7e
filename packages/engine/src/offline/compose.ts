// The offline engine's text: a reply in the persona's voice composed from its profile and the input. Fixed
// phrase banks per register (executive, technical, casual, warm, courteous, plain); which goal, pain,
// objection… is used depends on the words the input shares with each item; the seeded random source only
// breaks ties and picks among equivalent phrasings.
import type { EnginePersona, Level } from '../types.js';
import { topicPhrase, topicReference } from '../text/topic.js';
import { affinity, bestMatch, firstName, rankedItems, registerOf, roleLine, type Register } from './profile.js';
import {
  asPhrase,
  clip,
  counted,
  isTopicalStem,
  keySentence,
  keywords,
  lowerFirst,
  sentences,
  sharedStems,
  stemSet,
  topicalShared,
  upperFirst,
  valence,
  stemsOf,
  withArticle,
  type Random,
} from '../text/index.js';

type Mood = 'positive' | 'neutral' | 'negative';

const OPENERS: Record<Register, Record<Mood, readonly string[]>> = {
  executive: {
    positive: [
      'That is a fair point, and I will be direct.',
      'Interesting, but let me put numbers on it.',
      'Promising. Now let us talk about what it actually changes.',
    ],
    neutral: ['Let me be direct.', 'Here is how I look at it.', 'Short version first.'],
    negative: ['I understand the concern, and I share part of it.', 'That is exactly the kind of thing that worries me.', 'I will not sugar-coat it.'],
  },
  technical: {
    positive: ['That sounds reasonable on the surface.', 'Good, but I need specifics.', 'That could work, depending on the details.'],
    neutral: ['Let me look at this from a risk perspective.', 'Before anything else, I need the details.', 'Here is how I would assess it.'],
    negative: ['That raises a flag for me.', 'This is the kind of thing that ends up as an audit finding.', 'I have concerns about that.'],
  },
  casual: {
    positive: ['Okay, honestly? That is not bad.', 'Right, I am listening.', 'Okay, that is actually interesting.'],
    neutral: ['Okay, so here is my take.', 'Honest answer?', 'Right, let me think out loud.'],
    negative: ['Yeah, that is a no from me so far.', 'Honestly, that bugs me.', 'Not gonna lie, that is a red flag.'],
  },
  warm: {
    positive: ['Oh, I like the sound of that.', 'That could really help, actually.', 'Now that is something I can get behind.'],
    neutral: ['Let me tell you how it looks from where I am standing.', 'Okay, here is my honest take.', 'Good question. Here is how I see it.'],
    negative: ['I hear you, and it is frustrating.', 'That is exactly what worries me.', 'Oof, that is a sore point for me.'],
  },
  courteous: {
    positive: ['Thank you, that sounds rather appealing.', 'That is a lovely idea, and I would like to know more.', 'How interesting; I am glad you asked.'],
    neutral: ['Thank you for asking; let me explain how I see it.', 'That is a fair question.', 'Let me answer as carefully as I can.'],
    negative: ['I must say, that concerns me a little.', 'I appreciate the honesty, but that does worry me.', 'I am afraid that does not sit well with me.'],
  },
  plain: {
    positive: ['That sounds useful.', 'I like where this is going.', 'That could work for me.'],
    neutral: ['Here is how I see it.', 'Let me answer from my own experience.', 'Fair question.'],
    negative: ['That worries me.', 'I am not convinced yet.', 'That does not sit well with me.'],
  },
};

const TOPIC_LEADS: Record<Register, readonly string[]> = {
  executive: ['On {topic}, the question that matters to me is whether it helps me {goal}.', 'When I look at {topic}, I ask one thing: does it help me {goal}?'],
  technical: [
    'With {topic}, I look first at the risk, and then at whether it helps me {goal}.',
    'For {topic}, my test is simple: does it help me {goal} without widening our attack surface?',
  ],
  casual: ['With {topic}, what I care about is whether it helps me {goal}.', '{Topic}? Only matters to me if it helps me {goal}.'],
  warm: [
    'With {topic}, what I really want to know is whether it helps me {goal}.',
    'When it comes to {topic}, I keep asking myself one thing: will it help me {goal}?',
  ],
  courteous: [
    'Regarding {topic}, what matters most to me is whether it would help me {goal}.',
    'As for {topic}, I would mainly want to know whether it helps me {goal}.',
  ],
  plain: ['With {topic}, what matters to me is whether it helps me {goal}.', 'When I think about {topic}, I ask whether it helps me {goal}.'],
};

const PAIN_LINES: Record<Register, readonly string[]> = {
  executive: ['Right now my biggest problem is {pain}.', 'The cost I feel today is {pain}.'],
  technical: ['My biggest concern right now is {pain}.', 'What keeps coming up for us is {pain}.'],
  casual: ['Biggest headache right now: {pain}.', 'What really gets me at the moment is {pain}.'],
  warm: ['Honestly, my biggest headache right now is {pain}.', 'What wears me down these days is {pain}.'],
  courteous: ['What I find most trying at the moment is {pain}.', 'My main frustration lately has been {pain}.'],
  plain: ['My biggest frustration at the moment is {pain}.', 'What bothers me most right now is {pain}.'],
};

// An objection is a question the persona would ask ("who maintains this after…?") or a stand it takes ("I
// will not sign… without an exit clause"); each gets leads that fit it.
const OBJECTION_LINES: Record<Register, Record<'question' | 'statement', readonly string[]>> = {
  executive: {
    question: ['My first question: {objection}', 'Where I would push back: {objection}'],
    statement: ['Where I would push back: {objection}', 'One condition up front: {objection}'],
  },
  technical: {
    question: ['My first question: {objection}', 'Before we go further: {objection}'],
    statement: ['Before we go further: {objection}', 'One thing I will say up front: {objection}'],
  },
  casual: {
    question: ['But my first thought is: {objection}', 'Real talk though: {objection}'],
    statement: ['Real talk though: {objection}', 'Thing is, {objection}'],
  },
  warm: {
    question: ['My first worry, though: {objection}', 'But I have to ask: {objection}'],
    statement: ['My first worry, though: {objection}', 'I should say, though: {objection}'],
  },
  courteous: {
    question: ['My first question would be this: {objection}', 'I would also want to know: {objection}'],
    statement: ['I should mention one reservation: {objection}', 'I would have to be honest about one thing: {objection}'],
  },
  plain: {
    question: ['My first question: {objection}', 'What holds me back: {objection}'],
    statement: ['What holds me back: {objection}', 'My main reservation: {objection}'],
  },
};

/** The persona's objection, led in as a question or as a stand, whichever it is. */
function objectionSentence(register: Register, objection: string, random: Random): string {
  const form = /\?\s*$/.test(objection) ? 'question' : 'statement';
  return endSentence(fill(random.pick(OBJECTION_LINES[register][form]), { objection: lowerFirst(objection) }));
}

const PROOF_LINES: Record<Register, readonly string[]> = {
  executive: ['What would move me: {proof}.', 'What I need to see: {proof}.'],
  technical: ['What I need to see: {proof}.', 'Before anything else, send me this: {proof}.'],
  casual: ['What would convince me: {proof}.', 'Show me this and we are talking: {proof}.'],
  warm: ['What would really help me decide: {proof}.', 'What would go a long way: {proof}.'],
  courteous: ['What would reassure me: {proof}.', 'What I would find most helpful: {proof}.'],
  plain: ['What would convince me: {proof}.', 'What I would want to see: {proof}.'],
};

const CLOSINGS: Record<Register, readonly string[]> = {
  executive: ['If that holds up, send me something I can review in ten minutes.', 'Get me the numbers and I will make time.'],
  technical: ['Send me the documentation and we can take it from there.', 'If the answers are solid, we can schedule a proper review.'],
  casual: ['If it is legit, I am in. If not, no hard feelings.', 'Prove it and I will tell my friends.'],
  warm: ['If it really works like that, I would give it a try.', 'Show me it works and you will have a happy customer.'],
  courteous: ['If you could send me the details in writing, I would be grateful.', 'I would be glad to hear more once I have the details.'],
  plain: ['If that checks out, I would consider it.', 'If it delivers, I am open to it.'],
};

const SELF_LEADS: Record<'pains' | 'goals' | 'objections' | 'channels' | 'values' | 'win_factors', readonly string[]> = {
  pains: ['The hardest part for me right now is {item}.', 'If I am honest, what bothers me most is {item}.'],
  goals: ['What I am really after is to {item}.', 'My priority right now is to {item}.'],
  objections: ['What makes me hesitate is this: {item}', 'My usual pushback: {item}'],
  channels: ['I usually hear about things through {item}.', 'Most of my research happens through {item}.'],
  values: ['What matters most to me is {item}.', 'At heart, I care about {item}.'],
  win_factors: ['What wins me over is {item}.', 'I say yes when I see {item}.'],
};

// A greeting or "how are you" with nothing else in it: answered as a person would, not as a pitch to weigh.
const SMALL_TALK =
  /^(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))\b[\s,!.]*(?:\p{Lu}\p{L}*)?[\s,!.]*)?(?:how (?:are you|are things|is it going|was your (?:week|day|weekend)|is your (?:week|day) going)|how'?s it going|what'?s up|sup)?[\s?!.]*$/iu;
const SMALL_TALK_REPLIES: Record<Register, { hello: readonly string[]; busy: readonly string[]; back: readonly string[] }> = {
  executive: {
    hello: ['Hi, {name} here.', 'Good to hear from you. {name} here.'],
    busy: ['Busy, as always, mostly with {pain}.'],
    back: ['What did you want to run by me?'],
  },
  technical: { hello: ['Hi, {name} here.'], busy: ['Busy week, mostly {pain}.'], back: ['What are you working on?'] },
  casual: { hello: ['Hey! {name} here.', 'Heyyy, {name} here.'], busy: ['Honestly? Been dealing with {pain}.'], back: ['What is up?'] },
  warm: {
    hello: ['Hi! {name} here.', 'Hello! {name} here, nice of you to ask.'],
    busy: ['It has been a full week, mostly {pain}.'],
    back: ['What can I do for you?'],
  },
  courteous: {
    hello: ['Hello, {name} speaking.', 'Good day, {name} here.'],
    busy: ['It has been a busy week, I must say, mostly {pain}.'],
    back: ['How may I help?'],
  },
  plain: { hello: ['Hi, {name} here.'], busy: ['It has been a busy week, mostly {pain}.'], back: ['What did you want to ask?'] },
};

// Thanks with nothing else in it: acknowledged and signed off.
const THANKS = /^(?:(?:ok(?:ay)?|great|perfect|cool|awesome)[\s,!.]*)?(?:thanks|thank you|thx|cheers|many thanks)\b[^?]{0,60}$/i;
// A sign-off, not a pitch's closing ("If it really works like that, I would give it a try" after thanks).
const WELCOME: Record<Register, readonly string[]> = {
  executive: ['Glad it was useful. Send the next step when you have it.'],
  technical: ['Glad that helped. Ping me if anything else comes up.'],
  casual: ['Anytime! Hit me up if you need anything else.', 'No worries! Catch you later.'],
  warm: ['You are very welcome! Let me know how it goes.', 'Happy to help! Good luck with it.'],
  courteous: ['You are most welcome. Do let me know if I can help further.', 'It was my pleasure.'],
  plain: ['You are welcome. Let me know if you have more questions.'],
};

// Two options around "or", up to five words before it and eight after, ending the question.
const CHOICE_OPTIONS = "((?:[\\p{L}\\p{N}'-]+\\s+){0,4}?[\\p{L}\\p{N}'-]+)\\s+or\\s+((?:[\\p{L}\\p{N}'-]+\\s*){1,8})\\?\\s*$";
const CHOICE_AFTER_VERB = new RegExp(`\\b(?:prefer|rather|choose|pick|take|want|like|go with|need|use|offer|get|is it|be)\\s+${CHOICE_OPTIONS}`, 'iu');
const CHOICE_WHOLE = new RegExp(`^${CHOICE_OPTIONS}`, 'iu');

/** The two options of an either-or question ("monthly or annual billing?" → monthly billing, annual billing). */
export function choiceOptions(input: string): [string, string] | null {
  const question = sentences(input).find((line) => /\bor\b[^?]*\?\s*$/i.test(line));
  if (!question) return null;
  // After the verb that asks for the choice ("prefer", "offer"…), else the whole question ("Monthly or annual?").
  const match = CHOICE_AFTER_VERB.exec(question.trim()) ?? CHOICE_WHOLE.exec(question.trim());
  if (!match) return null;
  let left = match[1]!.trim();
  const right = match[2]!.trim();
  // A one-word first option shares the second's noun: "monthly or annual billing" → monthly billing.
  const rightWords = right.split(/\s+/);
  if (!/\s/.test(left) && rightWords.length > 1) left = [left, ...rightWords.slice(1)].join(' ');
  // "Would you try it or not?" offers no two things to choose between.
  const vague = /^(?:it|this|that|them|not|no|yes|nothing|something|anything|else)$/i;
  if (vague.test(left) || vague.test(right) || left.toLowerCase() === right.toLowerCase()) return null;
  return [left, right];
}

function isSmallTalk(input: string): boolean {
  const trimmed = input.trim();
  return trimmed.length > 0 && trimmed.split(/\s+/).length <= 10 && SMALL_TALK.test(trimmed);
}

// Words that say what a question about the persona is after.
const SELF_TOPICS: ReadonlyArray<[RegExp, keyof typeof SELF_LEADS]> = [
  // What a person measures is what their goals name ("a forecast that lands within 3% of actuals").
  [/\bmetrics?\b|\bkpis?\b|what (?:numbers|figures) do you|what do you (?:measure|track)\b/i, 'goals'],
  [/challeng|problem|frustrat|pain|struggl|hard|difficult|annoy|headache/i, 'pains'],
  [/worr|concern|hesitat|object|doubt|risk|afraid|push ?back/i, 'objections'],
  [/goal|want|priorit|objective|aim|hope|achiev|need/i, 'goals'],
  [/channel|hear about|find out|learn about|research|discover|where do you|find (?:new )?(?:products|tools|brands|vendors|software|apps)/i, 'channels'],
  [/value|care about|matter|believe/i, 'values'],
  [/buy|decid|choose|chose|convinc|win you|pick|switch/i, 'win_factors'],
];

export interface ComposeInput {
  persona: EnginePersona | null;
  instructions: string;
  /** The text the persona reacts to (the last user message). */
  input: string;
  /** Composing a document (artifact mode): a request to write is the document's subject, not declined. */
  writing?: boolean;
  /** The conversation before it: earlier user and assistant turns, oldest first (none on a first message). */
  history?: readonly { role: 'user' | 'assistant'; content: string }[];
  verbosity: Level;
  effort: Level;
  random: Random;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const lower = key.toLowerCase();
    const value = values[lower] ?? '';
    return key === lower ? value : upperFirst(value);
  });
}

function endSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…:]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Length asked for in the instructions or the input beats the `verbosity` setting. */
export function effectiveVerbosity(verbosity: Level, ...texts: string[]): Level {
  const joined = texts.join(' ');
  if (/\b(one sentence|in a sentence|briefly|brief|short answer|keep it short|concise|terse|tl;?dr)\b/i.test(joined)) return 'low';
  if (/\b(in detail|detailed|thorough|in depth|in-depth|elaborate|comprehensive)\b/i.test(joined)) return 'high';
  return verbosity;
}

function mood(input: string, persona: EnginePersona): Mood {
  const text = stemSet(input);
  const { positive, negative } = affinity(persona.details, text);
  const score = valence(input).score + 0.15 * Math.tanh(positive) - 0.2 * Math.tanh(negative);
  if (score > 0.2) return 'positive';
  if (score < -0.2) return 'negative';
  return 'neutral';
}

function asksAboutPersona(input: string): keyof typeof SELF_LEADS | null {
  const isQuestion = /\?\s*$/.test(input.trim()) || /^(what|how|why|which|where|when|who|do|does|are|is|would|could|can|tell)\b/i.test(input.trim());
  if (!isQuestion || !/\b(you|your|yourself)\b/i.test(input)) return null;
  for (const [pattern, list] of SELF_TOPICS) if (pattern.test(input)) return list;
  return null;
}

function wantsList(...texts: string[]): boolean {
  return /\b(list|bullet|bullets|bullet points|points)\b/i.test(texts.join(' '));
}

/**
 * Which of two options the persona leans to: each scored by the profile items it shares a stem with (what
 * the persona wants minus what it fears), the deciding item named; no pick on a tie, with the persona's first
 * win factor as what would decide it.
 */
function chooseOption(details: EnginePersona['details'], options: [string, string]): { pick: string | null; because: string } | null {
  // Only the words that tell the options apart count ("pricing" in both decides nothing); hyphenated words by
  // their parts ("per-seat" meets "seat-based", "usage-based" meets "usage-aligned"), not "based" or "per".
  const partStems = (text: string) => new Set([...stemSet(text.replace(/-/g, ' '))].filter((s) => isTopicalStem(s) && s !== 'base'));
  const [first, second] = options.map(partStems) as [Set<string>, Set<string>];
  const distinct = [new Set([...first].filter((s) => !second.has(s))), new Set([...second].filter((s) => !first.has(s)))];
  const touches = (item: string, stems: Set<string>) => sharedStems(partStems(item), stems).length > 0;
  const scored = options.map((option, index) => {
    const stems = distinct[index]!;
    const liked = [
      ...details.goals.filter((item) => touches(item, stems)).map((item) => `It helps me ${asPhrase(item)}.`),
      ...[...details.primary_objectives, ...details.win_factors, ...details.values]
        .filter((item) => touches(item, stems))
        .map((item) => `What I look for is ${asPhrase(item)}.`),
      // "I will not sign … without an exit clause": what follows "without" is wanted, not feared.
      ...details.objections.filter((item) => touches(/\bwithout\b(.*)$/i.exec(item)?.[1] ?? '', stems)).map((item) => endSentence(upperFirst(item))),
    ];
    const feared = [...details.pains, ...details.objections].filter((item) => touches(item.replace(/\bwithout\b.*$/i, ''), stems));
    return { option, score: liked.length - feared.length, reason: liked[0] ?? null, fear: feared[0] ?? null };
  });
  const [a, b] = scored as [(typeof scored)[number], (typeof scored)[number]];
  if (a.score === b.score) {
    const decider = details.win_factors[0] ?? details.goals[0];
    return decider ? { pick: null, because: decider } : null;
  }
  const [better, worse] = a.score > b.score ? [a, b] : [b, a];
  return { pick: better.option, because: better.reason ?? `${upperFirst(worse.option)} runs into ${asPhrase(worse.fear ?? 'what worries me')}.` };
}

// A request to go over the conversation so far, and a question about what the user said earlier.
const RECAP = /\b(?:summari[sz]e|recap|sum up)\b|\bwhat (?:did|have) we (?:discuss|talk|cover|agree)|\bwhere are we\b/i;
const RECALL = /\b(?:did I|I (?:said|told you|mentioned)|what was my|what is my|what's my|remind me)\b/i;
// A short question about the user's own facts ("When do we renew?", "Which ERP do we use?", "How many seats
// do we have?"), not a hypothetical ("What do we get if we sign?"): answered from what they said, when they did.
const OWN_FACT =
  /^\s*(?:when|what|which|where|who|how (?:many|much|long|often))\b[^?]{0,60}\b(?:do|did|does|is|are|was|were|have|has)\s+(?:we|our|my|I)\b[^?]*\?\s*$/i;
const HYPOTHETICAL = /\b(?:if|would|could|should|might)\b/i;
const RECAP_TURNS = 6;
// The words of a recall question that ask for the memory, not what it is about.
const RECALL_VERBS = stemsOf('ask asked say said tell told mention mentioned remind question');

/**
 * A recap of the conversation (the last turns, each by its key sentence, quoted as said), or the earlier user
 * sentence a recall question asks about; null when the input asks for neither. Offline, memory is the
 * conversation the request carries: quoted, never paraphrased.
 */
function recallFromHistory(input: string, history: readonly { role: 'user' | 'assistant'; content: string }[]): string | null {
  const earlier = history.filter((turn) => turn.content.trim().length > 0);
  if (RECAP.test(input)) {
    if (earlier.length === 0) return 'We have not discussed anything yet. What would you like to start with?';
    const lines = earlier.slice(-RECAP_TURNS).map((turn) => {
      const said = clip(keySentence(turn.content) ?? turn.content, 200);
      return `- ${turn.role === 'user' ? 'You' : 'I'}: “${said}”`;
    });
    return `Here is where we are:\n\n${lines.join('\n')}`;
  }
  if (RECALL.test(input)) {
    const wanted = new Set([...stemSet(input)].filter((stemmed) => !RECALL_VERBS.has(stemmed)));
    const lastUser = earlier.filter((entry) => entry.role === 'user').at(-1);
    // "What did I ask you?": no topic to look for, so the last thing the user said.
    if (lastUser && topicalShared(wanted, wanted).length === 0) {
      const said = clip(lastUser.content.trim(), 300);
      return `${said.endsWith('?') ? 'You asked' : 'You said'}: “${said}”`;
    }
    const best = userLineAbout(earlier, wanted);
    if (best) return `You said: “${clip(best, 300)}”`;
    return earlier.some((turn) => turn.role === 'user') ? 'I do not think you mentioned that so far.' : null;
  }
  if (OWN_FACT.test(input) && !HYPOTHETICAL.test(input)) {
    const best = userLineAbout(earlier, stemSet(input));
    if (best) return `You said: “${clip(best, 300)}”`;
  }
  return null;
}

/** The earlier user sentence sharing the most topical stems with `wanted` (the latest of equals), or null. */
function userLineAbout(earlier: readonly { role: 'user' | 'assistant'; content: string }[], wanted: Set<string>): string | null {
  let best: { line: string; shared: number } | null = null;
  for (const turn of earlier.filter((entry) => entry.role === 'user')) {
    for (const line of sentences(turn.content)) {
      const shared = topicalShared(stemSet(line), wanted).length;
      if (shared > 0 && (!best || shared >= best.shared)) best = { line, shared };
    }
  }
  return best?.line ?? null;
}

/**
 * Clauses a profile writes about the persona ("owns the company budget; signs anything above $25k; approves
 * …") as the persona says them after "I": each clause's leading verb in the first person (own, sign, approve;
 * reaches → reach, has → have).
 */
function firstPersonClauses(text: string): string {
  return text.replace(/(^|;\s*)([a-z]+?)(e?s)\b/g, (_, lead: string, verb: string, ending: string) => {
    if (verb === 'ha') return `${lead}have`;
    return `${lead}${/(?:ch|sh|x|ss)$/.test(verb) ? verb : verb + ending.slice(0, -1)}`;
  });
}

// A request to write something for the user ("Write me a tagline for our product."): the persona is a buyer,
// not a copywriter, and says what would get its attention instead (writing is generations' and artifacts' job).
const WRITING_REQUEST =
  /^(?:please\s+|can you\s+|could you\s+)?(?:write|draft|create|compose|come up with|give me)\b[^?]*\b(?:tagline|slogan|headline|email|post|copy|ad|text|description|pitch|subject line|name)s?\b/i;

// A question about the price: "is 9.99 a month too expensive?", "is it worth the money?".
const PRICE_QUESTION = /\btoo (?:expensive|pricey|much)\b|\bworth (?:it|the (?:money|price))\b|\b(?:price|pricing|cost)\b[^?]*\?|\b(?:cheap|affordable)\b/i;

const andList = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * A question about who the persona is, what it runs on, its budget, who decides with it or what it would
 * pay, answered from the profile field that says so; null when the question is none of these or the
 * profile is silent on it (a consumer has no tech stack).
 */
/** A reply's opening answer from the profile, and the profile item it names (no later line repeats it). */
interface ProfileFact {
  lead: string;
  item?: string;
}

function profileFact(input: string, persona: EnginePersona, writing: boolean): ProfileFact | null {
  const d = persona.details;
  if (!writing && WRITING_REQUEST.test(input.trim())) {
    const hook = d.win_factors[0] ?? d.goals[0];
    return hook
      ? { lead: `I am not the one to write it, but a line that would get my attention speaks to ${asPhrase(hook)}.`, item: hook }
      : { lead: 'I am not the one to write it; show me a draft and I will tell you how it lands with me.' };
  }
  // Only what the message asks: its questions, or a "tell me about yourself" (a pitch naming its "tool" asks nothing).
  const asked = sentences(input)
    .filter((line) => /\?\s*$/.test(line) || /^(?:please\s+)?(?:tell|describe|introduce)\b/i.test(line.trim()))
    .join(' ');
  if (!asked) return null;
  const aboutYou = /\b(?:you|your|yourself)\b/i.test(asked);
  if (aboutYou && /\b(?:about yourself|who are you|introduce yourself|your (?:role|job|background|company))\b/i.test(asked)) {
    const name = persona.name.split(',')[0];
    // "1,000–5,000 employees, about $400M revenue" → "1,000–5,000 employees"; "11–50 employees (12 staff)" → "11–50 employees".
    const size = d.company_size?.split(/,\s|\s*\(/)[0]?.trim();
    const place = d.locale_value?.replace(/\s*\(.*\)$/, '');
    const focus = d.primary_objectives[0] ?? d.goals[0];
    let intro: string;
    if (d.role_title) intro = `I am ${name}, ${withArticle(roleLine(d) ?? d.role_title)}${size ? ` at a company of ${size}` : ''}.`;
    else {
      // A life stage that is a household ("Couple without children") is what "we" are, not what "I" am.
      const stage = roleLine(d);
      const household = stage !== null && /\b(?:couple|family|household|parents)\b/i.test(stage);
      intro =
        stage === null
          ? `I am ${name}${place ? `, from ${place}` : ''}.`
          : household
            ? `I am ${name}. We are ${withArticle(stage)}${place ? ` in ${place}` : ''}.`
            : `I am ${name}, ${withArticle(stage)}${place ? ` in ${place}` : ''}.`;
    }
    return { lead: [intro, focus ? `Right now my focus is to ${asPhrase(focus)}.` : null].filter(Boolean).join(' ') };
  }
  if (
    aboutYou &&
    d.tech_stack.length > 0 &&
    /\b(?:what|which) (?:tools?|software|systems?|apps?)\b|\byour (?:tech )?stack\b|\bwhat do you (?:use|run)\b/i.test(asked)
  ) {
    return { lead: `Today we run on ${andList(d.tech_stack.slice(0, 5))}.` };
  }
  if (aboutYou && /\bbudget\b/i.test(asked)) {
    if (d.budget_authority) return { lead: `I ${endSentence(firstPersonClauses(lowerFirst(d.budget_authority)))}` };
    if (d.income_band) return { lead: `We are a ${d.income_band.replace(/\s*household$/i, '')} household, so every purchase gets weighed.` };
    return null;
  }
  if (/\b(?:decision|decide|sign[- ]?off|approv\w*|involved|committee|stakeholders?)\b/i.test(asked) && (d.decision_role || d.committee_mapping.length > 0)) {
    const lead = [
      d.decision_role
        ? `I am the ${lowerFirst(d.decision_role)
            .replace(/^(?:the|an?)\s+/, '')
            .replace(/[.]$/, '')}.`
        : null,
      d.committee_mapping.length > 0
        ? `Also involved: ${d.committee_mapping
            .slice(0, 4)
            .map((entry) => endSentence(entry).replace(/\.$/, ''))
            .join('; ')}.`
        : null,
    ]
      .filter(Boolean)
      .join(' ');
    return { lead };
  }
  // "Is 9.99 a month too expensive?": the persona's own words on price, its first item that speaks of it.
  if (PRICE_QUESTION.test(asked)) {
    const onPrice = [...d.objections, ...d.pains, ...d.win_factors].find((item) =>
      /\b(?:pric\w*|cost\w*|cheap\w*|fees?|commission|shipping|per month|total|budget|payback|roi)\b/i.test(item),
    );
    if (onPrice) return { lead: `On price: ${endSentence(lowerFirst(onPrice))}`, item: onPrice };
  }
  // "Would you recommend this to a friend?": when, by what would convince the persona.
  if (aboutYou && /\b(?:would|will|do) you recommend\b/i.test(asked)) {
    const convinced = d.proof_preferences[0] ?? d.win_factors[0];
    return convinced ? { lead: `I would recommend it to people like me once I have seen ${asPhrase(convinced)}.`, item: convinced } : null;
  }
  if (aboutYou && /\bwould you (?:pay|spend)\b|\bworth it to you\b|\bhow much would you\b/i.test(asked)) {
    const terms = d.win_factors.filter((item) => /\b(?:pay(?:back)?|pric\w*|cost|roi|cap)\b/i.test(item));
    if (terms.length === 0) return null;
    return { lead: `What I would pay depends on the terms: ${andList(terms.slice(0, 2).map((item) => lowerFirst(item)))}.` };
  }
  return null;
}

/** The persona's reply to `input`, in its voice. */
export function composeReply(args: ComposeInput): string {
  const { persona, random } = args;
  if (!persona) return composeNeutral(args);
  const verbosity = effectiveVerbosity(args.verbosity, args.instructions, args.input);
  const details = persona.details;
  const register = registerOf(details);
  if (THANKS.test(args.input.trim())) return random.pick(WELCOME[register]);
  const recalled = recallFromHistory(args.input, args.history ?? []);
  if (recalled !== null) return recalled;
  if (isSmallTalk(args.input)) {
    // "Hi" or "how was your week?": a greeting back, how the week went (the persona's first pain), a question back.
    const lines = SMALL_TALK_REPLIES[register];
    const pain = details.pains[0];
    return [
      fill(random.pick(lines.hello), { name: firstName(persona) }),
      /\bhow\b|what'?s up|\bsup\b/i.test(args.input) && pain ? fill(random.pick(lines.busy), { pain: asPhrase(pain) }) : null,
      random.pick(lines.back),
    ]
      .filter(Boolean)
      .join(' ');
  }
  const text = stemSet(`${args.input} ${args.instructions}`);
  // A price question whose persona says nothing on price is still about the price (was "For expensive, …").
  const question = sentences(args.input).at(-1) ?? '';
  const topic = /\?\s*$/.test(question) && PRICE_QUESTION.test(question) ? 'the price' : (topicReference(args.input) ?? 'this');
  const feeling = mood(args.input, persona);

  // A question about the persona itself is answered first, from the list it asks about; no later line
  // repeats the item it names.
  const selfTopic = asksAboutPersona(args.input);
  const selfItem = selfTopic ? (bestMatch(details, selfTopic, text, random)?.item ?? null) : null;
  const options = choiceOptions(args.input);
  const fact = options ? null : profileFact(args.input, persona, args.writing === true);
  const used = new Set([selfItem, fact?.item].filter((item): item is string => Boolean(item)));
  const goal = bestMatch(details, 'goals', text, random, used) ?? bestMatch(details, 'primary_objectives', text, random, used);
  const pain = bestMatch(details, 'pains', text, random, used);
  const objection = bestMatch(details, 'objections', text, random, used);
  const proof =
    bestMatch(details, 'proof_preferences', text, random, used) ??
    bestMatch(details, 'proof_types', text, random, used) ??
    bestMatch(details, 'win_factors', text, random, used);

  const opener = random.pick(OPENERS[register][feeling]);
  // An either-or question is answered with a choice: the option sharing more with what the persona wants than
  // with what it fears, named with the profile item that decides it; a tie says what would decide it.
  const choice = options ? chooseOption(details, options) : null;
  let lead: string;
  if (fact) {
    lead = fact.lead;
  } else if (options && choice) {
    lead = choice.pick
      ? `${upperFirst(choice.pick)}, if I have to choose. ${choice.because}`
      : `Between ${lowerFirst(options[0])} and ${lowerFirst(options[1])}, either could work; what decides it for me is ${asPhrase(choice.because)}.`;
  } else if (selfTopic && selfItem) {
    const phrase = selfTopic === 'objections' ? endSentence(selfItem) : asPhrase(selfItem);
    lead = fill(random.pick(SELF_LEADS[selfTopic]), { item: phrase });
  } else {
    lead = fill(random.pick(TOPIC_LEADS[register]), { topic, goal: goal ? asPhrase(goal.item) : 'do my job better' });
  }
  const painLine = pain
    ? `${fill(random.pick(PAIN_LINES[register]), { pain: asPhrase(pain.item) }).replace(/\.$/, '')}${pain.overlap > 0 ? ', so this hits close to home.' : '.'}`
    : null;
  const objectionLine = objection ? objectionSentence(register, objection.item, random) : null;
  const proofLine = proof ? fill(random.pick(PROOF_LINES[register]), { proof: asPhrase(proof.item) }) : null;
  const closing = random.pick(CLOSINGS[register]);

  if (wantsList(args.instructions, args.input)) {
    const points = [
      goal && `What I want: ${asPhrase(goal.item)}.`,
      pain && `What hurts today: ${asPhrase(pain.item)}.`,
      objection && `What I would push back on: ${endSentence(lowerFirst(objection.item))}`,
      proof && `What would convince me: ${asPhrase(proof.item)}.`,
    ].filter((point): point is string => Boolean(point));
    const extra = verbosity === 'high' ? rankedItems(details, 'values', text, 2).map((value) => `What I value: ${asPhrase(value)}.`) : [];
    const shown = verbosity === 'low' ? points.slice(0, 2) : [...points, ...extra];
    return [`${opener} ${lead}`, shown.map((point) => `- ${upperFirst(point)}`).join('\n')].join('\n\n');
  }

  if (verbosity === 'low') return [lead, objectionLine ?? closing].join(' ');

  const weighing =
    args.effort === 'high'
      ? (() => {
          const win = bestMatch(details, 'win_factors', text, random, used);
          const alternative = bestMatch(details, 'alternatives', text, random, used);
          if (!win && !alternative) return null;
          if (win && alternative)
            return `Weighing it up: ${asPhrase(win.item)} would count in its favour, and I would compare it against ${asPhrase(alternative.item)}.`;
          return `Weighing it up: ${asPhrase((win ?? alternative)!.item)} is what I would judge it on.`;
        })()
      : null;

  if (verbosity === 'medium') {
    const first = [opener, lead, painLine].filter(Boolean).join(' ');
    const second = [objectionLine, weighing, proofLine ?? closing].filter(Boolean).join(' ');
    return [first, second].filter((paragraph) => paragraph.length > 0).join('\n\n');
  }

  // high: quote the input, add a second objection, the values, a checklist and the closing.
  // The claim a longer message makes is quoted back; a one-line question is answered, not repeated.
  const quoted = sentences(args.input).length > 1 ? keySentence(args.input) : null;
  const role = roleLine(details);
  const intro = role ? `Speaking as ${withArticle(role)}, here is where I land.` : null;
  const secondObjection = rankedItems(details, 'objections', text, 3).find((item) => item !== objection?.item && !used.has(item));
  const values = rankedItems(details, 'values', text, 2).map(asPhrase);
  const valuesLine = values.length > 0 ? `In the end it comes down to ${values.join(' and ')} for me.` : null;
  const checklist = [...rankedItems(details, 'proof_preferences', text, 3), ...rankedItems(details, 'win_factors', text, 3)].slice(0, 3);
  const paragraphs = [
    [opener, intro, quoted ? `You said: “${clip(quoted, 160)}”` : null, lead, painLine].filter(Boolean).join(' '),
    [objectionLine, secondObjection ? `And: ${endSentence(lowerFirst(secondObjection))}` : null, weighing, valuesLine].filter(Boolean).join(' '),
    checklist.length > 0 ? `What I would need to see:\n${checklist.map((item) => `- ${upperFirst(asPhrase(item))}`).join('\n')}` : null,
    closing,
  ];
  return paragraphs.filter((paragraph): paragraph is string => Boolean(paragraph?.trim())).join('\n\n');
}

/** Without a persona: a plain restatement of the input's key points (the offline engine is not a model). */
function composeNeutral(args: ComposeInput): string {
  const verbosity = effectiveVerbosity(args.verbosity, args.instructions, args.input);
  const topic = topicPhrase(args.input);
  const points = keywords(args.input, verbosity === 'high' ? 6 : 4);
  const key = keySentence(args.input);
  const lines = [topic ? `You are asking about ${topic}.` : 'I read your message.'];
  if (verbosity !== 'low' && key) lines.push(`The key point I take from it: “${clip(key, 200)}”`);
  if (points.length > 0) lines.push(`Main terms: ${points.join(', ')}.`);
  if (verbosity === 'high') lines.push(`It has ${counted(sentences(args.input).length, 'sentence')}; tell me which part to expand on.`);
  return lines.join(' ');
}

/** A reply that uses a tool's result: what came back, and the persona's take on it. */
export function composeToolAnswer(args: ComposeInput & { toolName: string; output: string }): string {
  const summary = summarizeToolOutput(args.output);
  const label = args.toolName
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.toLowerCase())
    .filter((word) => word.length > 0);
  // "get_weather" → "the weather": a leading generic verb says nothing.
  while (label.length > 1 && /^(get|fetch|find|search|lookup|look|list|query|check|retrieve|load|read)$/.test(label[0] ?? '')) label.shift();
  const checked = `I checked the ${label.join(' ')}: ${summary}`;
  if (!args.persona) return endSentence(checked);
  const details = args.persona.details;
  const register = registerOf(details);
  const text = stemSet(`${args.input} ${args.output}`);
  const goal = bestMatch(details, 'goals', text, args.random);
  const objection = bestMatch(details, 'objections', text, args.random);
  const verbosity = effectiveVerbosity(args.verbosity, args.instructions);
  const reaction = goal ? `That matters to me because I want to ${asPhrase(goal.item)}.` : null;
  const parts = [endSentence(checked), reaction];
  if (verbosity !== 'low' && objection) parts.push(objectionSentence(register, objection.item, args.random));
  if (verbosity === 'high') parts.push(args.random.pick(CLOSINGS[register]));
  return parts.filter(Boolean).join(' ');
}

/** A short human summary of a tool's output: a few fields of a JSON object, or its first sentence. */
export function summarizeToolOutput(output: string): string {
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return clip(sentences(output)[0] ?? (output || 'nothing'), 200).replace(/[.!?]$/, '');
  }
  const leaves: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (leaves.length >= 4) return;
    if (Array.isArray(node)) {
      if (path === '') leaves.push(`${node.length} item${node.length === 1 ? '' : 's'}`);
      node.slice(0, 2).forEach((item, index) => walk(item, path ? `${path} ${index + 1}` : `item ${index + 1}`));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) walk(child, path ? `${path} ${key}` : key);
    } else {
      leaves.push(`${path.replace(/_/g, ' ') || 'result'} ${clip(String(node), 60)}`);
    }
  };
  walk(value, '');
  return leaves.length > 0 ? leaves.join(', ') : 'an empty result';
}

const DOCUMENT_KINDS: ReadonlyArray<[RegExp, string]> = [
  [/\be-?mail\b/i, 'Email'],
  [/\blanding[- ]page\b/i, 'Landing page'],
  [/\bblog\b|\barticle\b/i, 'Blog post'],
  [/\bone[- ]pager\b/i, 'One-pager'],
  [/\bchecklist\b/i, 'Checklist'],
  [/\bmemo\b/i, 'Memo'],
  [/\bbrief\b/i, 'Brief'],
  [/\bplan\b/i, 'Plan'],
  [/\bad copy\b|\badvert|\bad\b/i, 'Ad copy'],
  [/\bpost\b/i, 'Post'],
];

const PREFACES: Record<Register, readonly string[]> = {
  executive: ['Here is the draft, kept to what matters.', 'Draft below; short, as it should be.'],
  technical: ['Here is the draft; I kept it specific.', 'Draft below, with the details I would want.'],
  casual: ['Here you go.', 'Okay, here is my version.'],
  warm: ['Here is my draft, written the way I would want to read it.', 'Here you go, I hope this helps.'],
  courteous: ['Here is my draft; I hope it is useful.', 'Please find my draft below.'],
  plain: ['Here is the draft.', 'Draft below.'],
};

export interface ComposedDocument {
  preface: string;
  title: string;
  content: string;
}

/** A standalone Markdown document in the persona's voice, for artifact mode. */
export function composeDocument(args: ComposeInput): ComposedDocument {
  const verbosity = effectiveVerbosity(args.verbosity, args.instructions, args.input);
  const topic = topicPhrase(args.input) ?? 'this';
  const kind = DOCUMENT_KINDS.find(([pattern]) => pattern.test(args.input))?.[1] ?? null;
  const persona = args.persona;
  const title = clip(kind ? `${kind}: ${upperFirst(topic)}` : persona ? `${persona.name.split(',')[0]} on ${topic}` : upperFirst(topic), 120);
  // The document is the writing the request asks for: its body is the persona's view, never "I am not the one to write it".
  const body = composeReply({ ...args, verbosity: verbosity === 'high' ? 'medium' : 'low', writing: true });
  if (!persona) return { preface: 'Here is the document.', title, content: `# ${title}\n\n${body}` };

  const details = persona.details;
  const register = registerOf(details);
  const text = stemSet(`${args.input} ${args.instructions}`);
  const count = verbosity === 'low' ? 2 : verbosity === 'medium' ? 3 : 4;
  if (kind === 'Email') {
    const name = persona.name.split(',')[0]?.trim() ?? persona.name;
    const points = [...rankedItems(details, 'goals', text, Math.max(1, count - 1)), ...rankedItems(details, 'pains', text, 1)];
    const email = [
      `**Subject:** ${upperFirst(topic)}`,
      register === 'courteous' || register === 'executive' ? 'Hello,' : 'Hi,',
      body,
      points.length > 0 ? `What I care about:\n\n${points.map((item) => `- ${upperFirst(asPhrase(item))}`).join('\n')}` : null,
      args.random.pick(CLOSINGS[register]),
      register === 'casual' ? name.split(' ')[0] : `Best regards,\n${name}`,
    ];
    return { preface: args.random.pick(PREFACES[register]), title, content: email.filter(Boolean).join('\n\n') };
  }
  const section = (heading: string, items: readonly string[]) =>
    items.length > 0 ? `## ${heading}\n\n${items.map((item) => `- ${upperFirst(asPhrase(item))}`).join('\n')}` : null;
  const sections = [
    `# ${title}`,
    body,
    section('What matters to me', rankedItems(details, 'goals', text, count)),
    section('What worries me', [...rankedItems(details, 'pains', text, Math.max(1, count - 1)), ...rankedItems(details, 'objections', text, 1)]),
    verbosity === 'low'
      ? null
      : section('What would convince me', rankedItems(details, details.proof_preferences.length > 0 ? 'proof_preferences' : 'win_factors', text, count)),
    verbosity === 'high' ? section('What I value', rankedItems(details, 'values', text, count)) : null,
    verbosity === 'high' ? section('Where I look for information', rankedItems(details, 'channels', text, count)) : null,
    `## Next step\n\n${args.random.pick(CLOSINGS[register])}`,
  ];
  return { preface: args.random.pick(PREFACES[register]), title, content: sections.filter(Boolean).join('\n\n') };
}
