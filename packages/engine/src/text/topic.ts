// The topic of a text, for titles and fillers (an artifact's title on either engine, offline fillers).
import { contentWords, rankedKeywords, sentences, stem } from './index.js';

/** The input's topic: a run of up to three content words around its most salient keyword. */
export function topicPhrase(text: string): string | null {
  const lead = rankedKeywords(text, 1)[0];
  if (!lead) return null;
  const leadStem = stem(lead);
  const sentence = sentences(text).find((candidate) => contentWords(candidate).some((word) => stem(word) === leadStem)) ?? text;
  const tokens = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const content = new Set(contentWords(sentence));
  const index = tokens.findIndex((token) => stem(token.toLowerCase()) === leadStem);
  if (index < 0) return lead;
  let start = index;
  let end = index;
  while (start > 0 && end - start < 2 && content.has((tokens[start - 1] ?? '').toLowerCase())) start -= 1;
  while (end < tokens.length - 1 && end - start < 2 && content.has((tokens[end + 1] ?? '').toLowerCase())) end += 1;
  // A run that starts with a verb form ("automates month-end close") reads better without it.
  while (end > start && /(ates|izes|ises|ifies)$/i.test(tokens[start] ?? '')) start += 1;
  return tokens.slice(start, end + 1).join(' ');
}
