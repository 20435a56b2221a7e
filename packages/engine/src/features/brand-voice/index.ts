// A brand voice learned from the text of its sources (POST /brand-voices' job). Upstream: the model reads
// the texts and fills the voice through the structured-output primitive. Offline: the voice is measured
// from the same texts (sentence lengths, readability, address, rates, jargon, distinctive terms, verbatim
// example phrases), so two corpora give two voices and one corpus always the same voice.
import type { BrandVoiceExamplePhrase, BrandVoiceTone, BrandVoiceVocabulary, BrandVoiceWritingStyle } from '@persona-api/types';
import { contractSchema } from '../../schema/bundle.js';
import type { JsonSchema } from '../../types.js';
import { defineFeature } from '../define.js';
import { bansOf, measureVoice } from './offline.js';

export interface BrandVoiceSourceText {
  /** The source's name (a page title, a file name). */
  name: string;
  text: string;
}

export interface BrandVoiceInput {
  label: string;
  usage_context: string;
  /** The texts that were read (at least one); sources that failed are not passed. */
  sources: BrandVoiceSourceText[];
}

export interface LearnedBrandVoice {
  voice_summary: string;
  tone: BrandVoiceTone;
  writing_style: BrandVoiceWritingStyle;
  vocabulary: BrandVoiceVocabulary;
  example_phrases: BrandVoiceExamplePhrase[];
}

// Per source, what the prompt carries: enough for a voice, bounded for the context window.
const PROMPT_CHARS_PER_SOURCE = 12_000;

const brandVoiceSchema = (): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['voice_summary', 'tone', 'writing_style', 'vocabulary', 'example_phrases'],
  properties: {
    voice_summary: { type: 'string', minLength: 1, maxLength: 2000 },
    tone: contractSchema('BrandVoiceTone'),
    writing_style: contractSchema('BrandVoiceWritingStyle'),
    vocabulary: contractSchema('BrandVoiceVocabulary'),
    example_phrases: { type: 'array', minItems: 1, maxItems: 20, items: contractSchema('BrandVoiceExamplePhrase') },
  },
});

export const brandVoice = defineFeature<BrandVoiceInput, LearnedBrandVoice>({
  name: 'brand_voice',
  schema: brandVoiceSchema,
  prompt: (input) => [
    {
      role: 'system',
      content: [
        'You are a brand strategist. Derive the brand voice of the texts below: how they sound, how their sentences are built, which words they reach for.',
        'Base every statement on the texts, not on what brands usually sound like. `example_phrases` must be sentences quoted verbatim from the texts, each labelled with the use case it fits.',
        '`avoid_terms` are words that would break this voice (e.g. hype the texts never use); `preferred_terms` are words the texts use distinctively.',
        `The voice is called "${input.label}" and will be used for: ${input.usage_context}`,
      ].join('\n'),
    },
    {
      role: 'user',
      content: input.sources.map((source, index) => `## Source ${index + 1}: ${source.name}\n\n${source.text.slice(0, PROMPT_CHARS_PER_SOURCE)}`).join('\n\n'),
    },
  ],
  // Example phrases must be quotes: keep the model's only when they occur in a source, else use the measured ones.
  fromReply: (reply, input) => {
    const voice = reply as unknown as LearnedBrandVoice;
    const corpus = input.sources.map((source) => source.text.replace(/\s+/g, ' ')).join('\n');
    const quoted = voice.example_phrases.filter((phrase) => corpus.includes(phrase.example.replace(/\s+/g, ' ').trim()));
    // What the sources themselves ban is found in code: first among the terms to avoid, never preferred.
    const banned = bansOf(input.sources.map((source) => source.text)).terms;
    const vocabulary = {
      preferred_terms: voice.vocabulary.preferred_terms.filter((term) => !banned.includes(term.toLowerCase())),
      avoid_terms: [...banned, ...voice.vocabulary.avoid_terms.filter((term) => !banned.includes(term.toLowerCase()))].slice(0, 100),
    };
    return { ...voice, vocabulary, example_phrases: quoted.length > 0 ? quoted : measureVoice(input).example_phrases };
  },
  offline: (input) => measureVoice(input),
});
