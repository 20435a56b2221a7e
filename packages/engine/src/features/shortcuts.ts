// The Engine's named methods for the features the server calls by name, written once over `run` for
// both engines (a new feature needs none: callers use `engine.run(feature, input)`).
import type { Engine, EngineCore } from '../types.js';
import { personaProfile } from './persona-profile/index.js';
import { personaSuggestions } from './persona-suggestions/index.js';

export function withFeatureShortcuts(core: EngineCore): Engine {
  return {
    ...core,
    generatePersona: async (input, signal) => (await core.run(personaProfile, input, { signal })).output,
    suggestPersonas: async (input, signal) => (await core.run(personaSuggestions, input, { signal })).output,
  };
}
