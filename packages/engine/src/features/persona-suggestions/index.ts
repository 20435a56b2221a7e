// Personas that fit a business (`POST /personas/suggestions`); the server reads the sources beforehand.
import type { PersonaSuggestionInput, PersonaSuggestionResult } from '../../types.js';
import { defineFeature } from '../define.js';
import { offlinePersonaSuggestions } from './offline.js';
import { personaSuggestionsFromReply, personaSuggestionsPrompt, personaSuggestionsSchema } from './upstream.js';

export const personaSuggestions = defineFeature<PersonaSuggestionInput, PersonaSuggestionResult>({
  name: 'persona_suggestions',
  schema: personaSuggestionsSchema,
  prompt: personaSuggestionsPrompt,
  fromReply: personaSuggestionsFromReply,
  offline: offlinePersonaSuggestions,
});
