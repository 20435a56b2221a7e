// The persona's analysis of an input through an upstream model: ResponseAnalysis from the contract, asked
// in the persona's voice.
import type { FeatureMessage } from '../define.js';
import type { ResponseAnalysisInput } from './index.js';

export function responseAnalysisPrompt({ text, persona }: ResponseAnalysisInput): FeatureMessage[] {
  const who = persona ? `as ${persona.name}` : 'as the reader';
  return [
    {
      role: 'system',
      content: [
        persona?.system_prompt ?? '',
        `Now analyse, ${who}, how you perceive the input the user sends. Scores: intensities and confidences 0 to 1, sentiment and valence -1 to 1. Name real cognitive biases with the phrase of the input that triggers each (or null). You have no news feed: leave news_relevance.related_stories empty and judge relevance from the input alone. Reply with JSON only.`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    },
    { role: 'user', content: text },
  ];
}
