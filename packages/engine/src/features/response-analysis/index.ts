// The persona's analysis of an input (`analysis: true` on /responses): how it perceives the text, with
// emotions, biases and sentiment (ResponseAnalysis). The upstream engine falls back on the offline analysis
// when the model cannot fill the schema.
import { contractSchema } from '../../schema/bundle.js';
import { createRandom } from '../../text/index.js';
import type { EnginePersona, ResponseAnalysis } from '../../types.js';
import { defineFeature } from '../define.js';
import { analyzeInput } from './offline.js';
import { responseAnalysisPrompt } from './upstream.js';

export interface ResponseAnalysisInput {
  /** The text the persona reacts to (the last user message). */
  text: string;
  persona: EnginePersona | null;
  /** What the offline analysis' tie-breaks are seeded with (the offline engine: its seed, the persona, the conversation). */
  variation: ReadonlyArray<string | number>;
}

export const responseAnalysis = defineFeature<ResponseAnalysisInput, ResponseAnalysis>({
  name: 'response_analysis',
  schema: () => contractSchema('ResponseAnalysis'),
  prompt: responseAnalysisPrompt,
  offline: ({ text, persona, variation }) => analyzeInput(text, persona, createRandom('analysis', ...variation)),
});
