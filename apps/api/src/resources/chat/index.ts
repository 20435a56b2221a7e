import { resourceModule } from '../module.js';
import { createChatCompletion } from './handlers.js';

export const chatModule = resourceModule({
  tag: 'Chat',
  handlers: { createChatCompletion },
  isolation: {
    // Another tenant's custom persona is unknown (and nothing is charged to B).
    createChatCompletion: async ({ api, notFound }, { b, ids }) =>
      notFound(
        await api.post('/chat/completions', b.key, { model: 'service-1', persona_id: ids.aPersona, messages: [{ role: 'user', content: 'Hi' }] }),
        'persona_id',
      ),
  },
});
