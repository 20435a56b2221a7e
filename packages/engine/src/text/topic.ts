// The topic of a text, for titles and fillers (an artifact's title on either engine, offline fillers).
import { contentWords, isCommonVerb, isTopicalStem, rankedKeywords, sentences, stem, VERB_SUFFIX } from './index.js';

/** The input's topic: a run of up to three content words around its most salient keyword. */
export function topicPhrase(text: string): string | null {
  return topicRun(text)?.phrase ?? null;
}

// Determiners a reply keeps before the topic, as the other side says them ("our add-on" → "your add-on").
const REPLY_DETERMINERS: Record<string, string> = {
  a: 'a',
  an: 'an',
  the: 'the',
  this: 'this',
  that: 'that',
  these: 'these',
  those: 'those',
  your: 'my',
  my: 'your',
  our: 'your',
};

/**
 * The topic as a reply refers back to it, with the determiner the input gave it and the words between
 * ("pitching an AI forecasting add-on" → "an AI forecasting add-on", "our new pricing" → "your new
 * pricing"); the bare topic when the input gave none.
 */
export function topicReference(text: string): string | null {
  // "What do you think of a mobile app that tracks your spending?" is about the app: the object of "think
  // of", up to the clause that describes it, when it is short.
  const asked =
    /\b(?:think|feel|opinion)\s+(?:of|about|on)\s+((?:[\p{L}\p{N}'’-]+\s*){1,6}?)(?=\s+(?:that|which|who|where|for|with|if|when)\b|[,?.!;:]|$)/iu.exec(text);
  if (asked?.[1]) {
    const [first, ...rest] = asked[1].trim().split(/\s+/);
    const determiner = REPLY_DETERMINERS[(first ?? '').toLowerCase()];
    if (determiner && rest.length > 0) return [determiner, ...rest].join(' ');
    if (first && !/^(?:it|this|that|them|these|those|me|us)$/i.test(asked[1].trim())) return asked[1].trim();
  }
  const run = topicRun(text);
  if (!run) return null;
  const { tokens, start, phrase } = run;
  // At most two words between the determiner and the run ("an AI", "our new").
  for (let back = start - 1; back >= Math.max(0, start - 3); back -= 1) {
    const word = (tokens[back] ?? '').toLowerCase();
    const determiner = REPLY_DETERMINERS[word];
    if (determiner) return [determiner, ...tokens.slice(back + 1, start), phrase].join(' ');
    if (!/^[\p{Lu}\p{N}]{2,}$/u.test(tokens[back] ?? '') && !/^[a-z]+$/.test(word)) break;
    // "a month too expensive": a unit of time is no part of what the topic is.
    if (!isTopicalStem(stem(word))) break;
    if (/^(of|for|to|in|on|at|with|about|and|or|is|are|was|were|be|pitching|selling|building|offering|launching|considering)$/.test(word)) break;
  }
  return phrase;
}

function topicRun(text: string): { tokens: string[]; start: number; phrase: string } | null {
  // Led by the most salient word that names a topic: "raising the price … per month next quarter" is about
  // the price, not "month next quarter".
  const ranked = rankedKeywords(text, 6);
  const lead = ranked.find((word) => isTopicalStem(stem(word)) && !isCommonVerb(word)) ?? ranked[0];
  if (!lead) return null;
  const leadStem = stem(lead);
  const sentence = sentences(text).find((candidate) => contentWords(candidate).some((word) => stem(word) === leadStem)) ?? text;
  const tokens = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const content = new Set(contentWords(sentence));
  const index = tokens.findIndex((token) => stem(token.toLowerCase()) === leadStem);
  if (index < 0) return { tokens: [lead], start: 0, phrase: lead };
  let start = index;
  let end = index;
  const joins = (token: string | undefined) => token !== undefined && content.has(token.toLowerCase()) && isTopicalStem(stem(token.toLowerCase()));
  while (start > 0 && end - start < 2 && joins(tokens[start - 1])) start -= 1;
  while (end < tokens.length - 1 && end - start < 2 && joins(tokens[end + 1])) end += 1;
  // A run that starts with a verb form ("automates month-end close") reads better without it.
  while (end > start && VERB_SUFFIX.test(tokens[start] ?? '')) start += 1;
  return { tokens, start, phrase: tokens.slice(start, end + 1).join(' ') };
}
