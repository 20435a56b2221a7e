import { contentWords, sentences, stem, stemSet } from '@persona-api/engine';

/** Stems of a query's content words. */
export const queryStems = (query: string): Set<string> => stemSet(query);

/** How many of the query's stems a text contains. */
export function overlap(text: string, query: ReadonlySet<string>): number {
  let count = 0;
  for (const s of stemSet(text)) if (query.has(s)) count += 1;
  return count;
}

/**
 * The query's distinct search prefixes, at most 12, safe for a `to_tsquery` (letters and digits only): each
 * content word cut to what it shares with its stem, so "companies" and "company" both give `compan`.
 */
export function searchTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const word of contentWords(query)) {
    const stemmed = stem(word);
    let shared = 0;
    while (shared < word.length && word[shared] === stemmed[shared]) shared += 1;
    const term = word.slice(0, Math.max(shared, Math.min(3, word.length))).replace(/[^\p{L}\p{N}]+/gu, '');
    if (term.length >= 2) terms.add(term);
    if (terms.size >= 12) break;
  }
  return [...terms];
}

/** Passages of about `size` characters, cut at sentence ends. */
export function passages(text: string, size = 700): string[] {
  const out: string[] = [];
  let current = '';
  for (const sentence of sentences(text)) {
    if (current && current.length + sentence.length + 1 > size) {
      out.push(current);
      current = '';
    }
    current = current ? `${current} ${sentence}` : sentence;
  }
  if (current) out.push(current);
  return out.map((passage) => (passage.length > 2000 ? `${passage.slice(0, 1999)}…` : passage));
}

/** At most `max` characters. */
export const clipText = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
