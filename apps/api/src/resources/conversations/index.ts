import { resourceModule } from '../module.js';
import { conversationHandlers } from './handlers.js';
import { seedConversation } from './isolation.js';

export const conversationsModule = resourceModule({
  tag: 'Conversations',
  handlers: conversationHandlers,
  isolationSeed: seedConversation,
  isolation: {
    // B's new conversation cannot start from A's output items either (the same 400 as an unknown id).
    createConversation: async ({ api, expect }, { b, ids }) => {
      const quoted = await api.post('/conversations', b.key, { items: [{ type: 'item_reference', id: ids.aResponseMessage }] });
      expect([quoted.status, quoted.body.error?.param]).toEqual([400, 'items.0.id']);
    },
    getConversation: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/conversations/${ids.aConversation}`, b.key)),
    updateConversation: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.post(`/conversations/${ids.aConversation}`, b.key, { metadata: { topic: 'stolen' } }));
      expect((await api.get(`/conversations/${ids.aConversation}`, a.key)).body.metadata).toEqual({ topic: 'secret' });
    },
    deleteConversation: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.delete(`/conversations/${ids.aConversation}`, b.key));
      expect((await api.get(`/conversations/${ids.aConversation}`, a.key)).status).toBe(200);
    },
    listConversationItems: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/conversations/${ids.aConversation}/items`, b.key)),
    createConversationItems: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.post(`/conversations/${ids.aConversation}/items`, b.key, { items: [{ role: 'user', content: 'Planted.' }] }));
      expect((await api.get(`/conversations/${ids.aConversation}/items`, a.key)).body.data.length).toBe(1);
    },
    getConversationItem: async ({ api, notFound }, { b, ids }) =>
      notFound(await api.get(`/conversations/${ids.aConversation}/items/${ids.aConversationItem}`, b.key)),
    deleteConversationItem: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.delete(`/conversations/${ids.aConversation}/items/${ids.aConversationItem}`, b.key));
      expect((await api.get(`/conversations/${ids.aConversation}/items/${ids.aConversationItem}`, a.key)).status).toBe(200);
    },
  },
});
