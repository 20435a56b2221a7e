import { resourceModule } from '../module.js';
import { countResponseInputTokens, createResponse, deleteResponse, getResponse, listResponseInputItems } from './handlers.js';
import { seedStoredResponse } from './isolation.js';
import { responseJobs } from './retention.js';

// The request reading, model call and stream plumbing stay in src/ai/ (shared with chat and later AI features).
export const responsesModule = resourceModule({
  tag: 'Responses',
  handlers: { createResponse, countResponseInputTokens, getResponse, deleteResponse, listResponseInputItems },
  isolationSeed: seedStoredResponse,
  jobs: responseJobs,
  isolation: {
    // Another tenant's custom persona is unknown (and nothing is charged to B).
    createResponse: async ({ api, expect, notFound }, { b, ids }) => {
      notFound(await api.post('/responses', b.key, { model: 'service-1', persona_id: ids.aPersona, input: 'Hi' }), 'persona_id');
      // Nor can B continue A's conversation or quote A's output (both 400s, the same as for an unknown id).
      const chained = await api.post('/responses', b.key, {
        model: 'service-1',
        persona_id: 'persona_saas_cfo',
        input: 'Go on.',
        previous_response_id: ids.aResponse,
      });
      expect([chained.status, chained.body.error?.code]).toEqual([400, 'previous_response_not_found']);
      const quoted = await api.post('/responses', b.key, {
        model: 'service-1',
        persona_id: 'persona_saas_cfo',
        input: [
          { type: 'item_reference', id: ids.aResponseMessage },
          { role: 'user', content: 'Go on.' },
        ],
      });
      expect([quoted.status, quoted.body.error?.param]).toEqual([400, 'input.0.id']);
      // Nor read A's conversation, or add to it, through a model call.
      notFound(
        await api.post('/responses', b.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Go on.', conversation: ids.aConversation }),
        'conversation',
      );
    },
    // B cannot count with A's custom persona, continue A's chain or read A's conversation: the call's errors.
    countResponseInputTokens: async ({ api, expect, notFound }, { b, ids }) => {
      notFound(await api.post('/responses/input_tokens', b.key, { model: 'service-1', persona_id: ids.aPersona, input: 'Hi' }), 'persona_id');
      const chained = await api.post('/responses/input_tokens', b.key, {
        model: 'service-1',
        persona_id: 'persona_saas_cfo',
        input: 'Go on.',
        previous_response_id: ids.aResponse,
      });
      expect([chained.status, chained.body.error?.code]).toEqual([400, 'previous_response_not_found']);
      notFound(
        await api.post('/responses/input_tokens', b.key, {
          model: 'service-1',
          persona_id: 'persona_saas_cfo',
          input: 'Go on.',
          conversation: ids.aConversation,
        }),
        'conversation',
      );
    },
    getResponse: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/responses/${ids.aResponse}`, b.key)),
    listResponseInputItems: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/responses/${ids.aResponse}/input_items`, b.key)),
    deleteResponse: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.delete(`/responses/${ids.aResponse}`, b.key));
      expect((await api.get(`/responses/${ids.aResponse}`, a.key)).status).toBe(200);
    },
  },
});
