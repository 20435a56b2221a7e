// What the offline engine writes into the string fields of a generated JSON instance: persona-flavoured
// text chosen by the field's name for structured output, words of the input for tool arguments.
import type { EnginePersona } from '../types.js';
import { topicPhrase } from '../text/topic.js';
import { bestMatch, type ProfileList } from './profile.js';
import type { StringFiller } from './structured.js';
import { asPhrase, clip, keySentence, keywords, stemSet, upperFirst, type Random } from '../text/index.js';

// Field name → the profile list it is filled from (first match wins).
const LIST_FIELDS: ReadonlyArray<[RegExp, ProfileList]> = [
  [/objection|concern|risk|worr|cons?$|drawback|weakness|hesitat|question|doubt/i, 'objections'],
  [/pain|problem|frustrat|challenge|issue|struggle/i, 'pains'],
  [/goal|objective|want|need|priorit|aim/i, 'goals'],
  [/pros?$|benefit|strength|advantage|like|win/i, 'win_factors'],
  [/value|principle|belief/i, 'values'],
  [/channel|source|where/i, 'channels'],
  [/proof|evidence/i, 'proof_preferences'],
  [/trigger/i, 'triggers'],
  [/alternative|competitor|option/i, 'alternatives'],
  [/recommend|suggest|next|action|step|improv/i, 'win_factors'],
  [/differentiat|feature/i, 'key_differentiators'],
];

const PROSE_FIELD =
  /summary|descri|reason|rationale|feedback|comment|opinion|answer|response|message|text|content|body|explanation|reaction|thought|verdict|note|review|quote|statement|takeaway|analysis|assessment/i;
const TITLE_FIELD = /^(name|title|headline|subject|label|heading)$|title$|headline$/i;
const PERSON_FIELD = /persona|author|speaker|reviewer|customer|buyer/i;
const KEYWORD_FIELD = /keyword|tag|topic|theme|category|term/i;

function atIndex(items: readonly string[], index: number | null, fallback: string): string {
  if (items.length === 0) return fallback;
  return items[(index ?? 0) % items.length] ?? fallback;
}

/** Structured output in the persona's voice: summaries as a sentence, lists from the profile, titles from the topic. */
export function personaFiller(persona: EnginePersona | null, input: string, reply: string, random: Random): StringFiller {
  const topic = topicPhrase(input) ?? 'this';
  const topics = keywords(input, 6);
  const text = stemSet(input);
  const sentence = clip(reply.split('\n')[0] ?? reply, 240);
  return (leaf) => {
    const key = leaf.key;
    if (persona && PERSON_FIELD.test(key)) return persona.name;
    if (TITLE_FIELD.test(key)) return clip(upperFirst(topic), 80);
    if (KEYWORD_FIELD.test(key)) return atIndex(topics, leaf.index, topic);
    if (persona) {
      for (const [pattern, list] of LIST_FIELDS) {
        if (!pattern.test(key)) continue;
        const items = persona.details[list];
        if (items.length === 0) break;
        if (leaf.index !== null) return atIndex(items, leaf.index, topic);
        return bestMatch(persona.details, list, text, random)?.item ?? items[0];
      }
    }
    if (PROSE_FIELD.test(key)) return leaf.index === null ? sentence : clip(asPhrase(atIndex(reply.split(/(?<=[.!?])\s+/), leaf.index, sentence)), 200);
    return leaf.index === null ? clip(topic, 80) : atIndex(topics, leaf.index, topic);
  };
}

const QUERY_FIELD = /^(q|query|search|search_query|text|question|prompt|message|input|content|request|keywords?)$/i;
const PLACE_FIELD = /city|location|place|country|region|destination|address|town|area/i;
const NAME_FIELD = /name|title|subject|topic|term|product|item|company/i;

/** Tool arguments: the input's key sentence for query-like fields, its proper nouns for places, its topic otherwise. */
export function inputFiller(input: string): StringFiller {
  const key = clip(keySentence(input) ?? input, 200);
  const topic = topicPhrase(input) ?? keywords(input, 1)[0] ?? 'general';
  // Capitalised words that do not start a sentence: likely names of places, products or people.
  const proper = [...input.matchAll(/(?<![.!?]\s|^)\b([A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+)*)/gu)]
    .map((match) => match[1] ?? '')
    .filter((word) => !/^(I|I'm|I'd|I've)$/.test(word));
  return (leaf) => {
    if (QUERY_FIELD.test(leaf.key)) return key;
    if (PLACE_FIELD.test(leaf.key)) return proper[0] ?? topic;
    if (NAME_FIELD.test(leaf.key)) return proper[0] ?? topic;
    return topic;
  };
}
