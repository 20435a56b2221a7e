// Text features: free text an engine writes (and can stream), as opposed to `defineFeature`'s structured
// output. The OpenAI-compatible engine sends `request(input)` to the model; the offline engine writes
// `offline(input)`, deterministic and computed from the input. Both stream it through `engine.streamText`.
import type { GenerateRequest } from '../types.js';
import type { OfflineContext } from './define.js';

export interface TextFeature<Input> {
  readonly name: string;
  /** What an upstream model gets: system text, the user turn, the output budget. */
  request(input: Input): GenerateRequest;
  /** The offline engine's text for the same input. */
  offline(input: Input, context: OfflineContext): string;
}

export function defineTextFeature<Input>(feature: TextFeature<Input>): TextFeature<Input> {
  return feature;
}
