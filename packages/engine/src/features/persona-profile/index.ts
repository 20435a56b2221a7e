// The profile of a custom persona from a description (`POST /personas`).
import type { GeneratedPersona, PersonaGenerationInput } from '../../types.js';
import { defineFeature } from '../define.js';
import { offlinePersonaProfile } from './offline.js';
import { personaProfileFromReply, personaProfilePrompt, personaProfileSchema } from './upstream.js';

export const personaProfile = defineFeature<PersonaGenerationInput, GeneratedPersona>({
  name: 'persona_profile',
  schema: personaProfileSchema,
  prompt: personaProfilePrompt,
  fromReply: personaProfileFromReply,
  offline: offlinePersonaProfile,
});
