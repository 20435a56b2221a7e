// Content written by a generation app (POST /generations): the app's rendered prompt template, for an
// audience (a persona, optional) in a brand voice (optional). Upstream: a copywriter system prompt that
// carries the audience and the voice as structured blocks, and the app's prompt as the user turn. Offline:
// the content composed from the inputs themselves (see offline.ts). Both write Markdown; the server renders
// HTML apps block by block and enforces the voice's avoided terms in code.
import type {
  BrandVoiceExamplePhrase,
  BrandVoiceTone,
  BrandVoiceVocabulary,
  BrandVoiceWritingStyle,
  GenerationApp,
  GenerationInputValue,
} from '@persona-api/types';
import type { EnginePersona } from '../../types.js';
import { defineTextFeature } from '../define-text.js';
import { composeContent } from './offline.js';

export interface ContentVoice {
  label: string;
  voice_summary: string | null;
  tone: BrandVoiceTone;
  writing_style: BrandVoiceWritingStyle;
  vocabulary: BrandVoiceVocabulary;
  example_phrases: BrandVoiceExamplePhrase[] | null;
}

export interface ContentGenerationInput {
  app: Pick<GenerationApp, 'id' | 'name' | 'category' | 'description' | 'max_output_tokens'>;
  /** The app's template rendered with the inputs. */
  prompt: string;
  /** The inputs with the app's defaults applied, by field name. */
  values: Record<string, GenerationInputValue>;
  /** Who the content is for (null: a general audience). */
  persona: EnginePersona | null;
  voice: ContentVoice | null;
}

const list = (items: readonly string[], max: number) =>
  items
    .slice(0, max)
    .map((item) => `- ${item}`)
    .join('\n');

function audienceBlock(persona: EnginePersona): string {
  const d = persona.details;
  const parts = [
    `Write for this reader (you are not them; make the content matter to them): ${persona.name}. ${persona.description}`,
    d.goals.length ? `What they want:\n${list(d.goals, 4)}` : '',
    d.pains.length ? `What frustrates them:\n${list(d.pains, 4)}` : '',
    d.objections.length ? `What makes them hesitate (answer it without naming it as an objection):\n${list(d.objections, 3)}` : '',
    d.values.length ? `What they value:\n${list(d.values, 3)}` : '',
  ];
  return parts.filter(Boolean).join('\n');
}

function voiceBlock(voice: ContentVoice): string {
  const { tone, writing_style: style, vocabulary } = voice;
  const parts = [
    `Write in the brand voice "${voice.label}".${voice.voice_summary ? ` ${voice.voice_summary}` : ''}`,
    tone.adjectives.length ? `Tone: ${tone.adjectives.join(', ')}.` : '',
    tone.dos.length ? `Do:\n${list(tone.dos, 8)}` : '',
    tone.donts.length ? `Don't:\n${list(tone.donts, 8)}` : '',
    style.sentence_structure ? `Sentences: ${style.sentence_structure}` : '',
    style.jargon_usage ? `Jargon: ${style.jargon_usage}` : '',
    vocabulary.preferred_terms.length ? `Prefer these terms where they fit: ${vocabulary.preferred_terms.join(', ')}.` : '',
    vocabulary.avoid_terms.length ? `Never use these terms, in any form: ${vocabulary.avoid_terms.join(', ')}.` : '',
    voice.example_phrases?.length
      ? `Phrases in this voice, for style only (do not copy them):\n${list(
          voice.example_phrases.map((phrase) => `${phrase.use_case}: "${phrase.example}"`),
          5,
        )}`
      : '',
  ];
  return parts.filter(Boolean).join('\n');
}

export function contentSystemPrompt(input: ContentGenerationInput): string {
  return [
    `You are a senior copywriter. You write ${input.app.name} content (${input.app.category.replace(/_/g, ' ')}): ${input.app.description}`,
    'Reply with the content only, in Markdown, with no preamble and no code fence around it. Never write raw HTML.',
    input.persona ? audienceBlock(input.persona) : 'Write for a general audience of the brief.',
    input.voice ? voiceBlock(input.voice) : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export const contentGeneration = defineTextFeature<ContentGenerationInput>({
  name: 'content_generation',
  request: (input) => ({
    persona: null,
    instructions: contentSystemPrompt(input),
    messages: [{ role: 'user', content: input.prompt }],
    max_output_tokens: input.app.max_output_tokens,
    temperature: 0.7,
  }),
  offline: composeContent,
});
