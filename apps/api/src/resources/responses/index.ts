import { resourceModule } from '../module.js';
import { createResponse } from './handlers.js';

// The request reading, model call and stream plumbing stay in src/ai/ (shared with chat and later AI features).
export const responsesModule = resourceModule({
  tag: 'Responses',
  handlers: { createResponse },
  isolation: {
    // Another tenant's custom persona is unknown (and nothing is charged to B).
    createResponse: async ({ api, notFound }, { b, ids }) =>
      notFound(await api.post('/responses', b.key, { model: 'service-1', persona_id: ids.aPersona, input: 'Hi' }), 'persona_id'),
  },
});
