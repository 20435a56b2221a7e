import { resourceModule } from '../module.js';
import { createChatCompletion } from './handlers.js';
import { seedStoredChatCompletion } from './isolation.js';
import { storedChatHandlers } from './stored-handlers.js';

export const chatModule = resourceModule({
  tag: 'Chat',
  handlers: { createChatCompletion, ...storedChatHandlers },
  isolationSeed: seedStoredChatCompletion,
  isolation: {
    // Another tenant's custom persona is unknown (and nothing is charged to B).
    createChatCompletion: async ({ api, notFound }, { b, ids }) =>
      notFound(
        await api.post('/chat/completions', b.key, { model: 'service-1', persona_id: ids.aPersona, messages: [{ role: 'user', content: 'Hi' }] }),
        'persona_id',
      ),
    // B's list does not hold A's completion, and A's id is no cursor for B.
    listChatCompletions: async ({ api, expect }, { b, ids }) => {
      const listed = await api.get('/chat/completions?limit=100', b.key);
      expect(listed.body.data.map((completion: { id: string }) => completion.id)).not.toContain(ids.aChatCompletion);
      const after = await api.get(`/chat/completions?after=${ids.aChatCompletion}`, b.key);
      expect([after.status, after.body.error?.code]).toEqual([400, 'invalid_cursor']);
    },
    getChatCompletion: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/chat/completions/${ids.aChatCompletion}`, b.key)),
    updateChatCompletion: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.post(`/chat/completions/${ids.aChatCompletion}`, b.key, { metadata: { topic: 'stolen' } }));
      expect((await api.get(`/chat/completions/${ids.aChatCompletion}`, a.key)).body.metadata).toEqual({ topic: 'secret' });
    },
    deleteChatCompletion: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.delete(`/chat/completions/${ids.aChatCompletion}`, b.key));
      expect((await api.get(`/chat/completions/${ids.aChatCompletion}`, a.key)).status).toBe(200);
    },
    listChatCompletionMessages: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/chat/completions/${ids.aChatCompletion}/messages`, b.key)),
  },
});
