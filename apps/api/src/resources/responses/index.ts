import { type IsolationFixture, type IsolationKit, resourceModule } from '../module.js';
import { countResponseInputTokens, createResponse, deleteResponse, getResponse, listResponseInputItems } from './handlers.js';
import { seedStoredResponse } from './isolation.js';
import { responseJobs } from './retention.js';

/**
 * A body read as a call reads it (a call, or its token count) cannot take anything of A's: A's custom persona
 * is unknown (and nothing is charged to B); A's response cannot be continued or quoted (both 400s, the same
 * as for an unknown id); A's conversation cannot be read or added to.
 */
const refusesAnotherTenantsContext = async (path: string, { api, expect, notFound }: IsolationKit, { b, ids }: IsolationFixture) => {
  const ask = (body: Record<string, unknown>) => api.post(path, b.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Go on.', ...body });
  notFound(await ask({ persona_id: ids.aPersona }), 'persona_id');
  const chained = await ask({ previous_response_id: ids.aResponse });
  expect([chained.status, chained.body.error?.code]).toEqual([400, 'previous_response_not_found']);
  const quoted = await ask({
    input: [
      { type: 'item_reference', id: ids.aResponseMessage },
      { role: 'user', content: 'Go on.' },
    ],
  });
  expect([quoted.status, quoted.body.error?.param]).toEqual([400, 'input.0.id']);
  notFound(await ask({ conversation: ids.aConversation }), 'conversation');
};

// The request reading, model call and stream plumbing stay in src/ai/ (shared with chat and later AI features).
export const responsesModule = resourceModule({
  tag: 'Responses',
  handlers: { createResponse, countResponseInputTokens, getResponse, deleteResponse, listResponseInputItems },
  isolationSeed: seedStoredResponse,
  jobs: responseJobs,
  isolation: {
    createResponse: (kit, fixture) => refusesAnotherTenantsContext('/responses', kit, fixture),
    countResponseInputTokens: (kit, fixture) => refusesAnotherTenantsContext('/responses/input_tokens', kit, fixture),
    getResponse: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/responses/${ids.aResponse}`, b.key)),
    listResponseInputItems: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/responses/${ids.aResponse}/input_items`, b.key)),
    deleteResponse: async ({ api, expect, notFound }, { a, b, ids }) => {
      notFound(await api.delete(`/responses/${ids.aResponse}`, b.key));
      expect((await api.get(`/responses/${ids.aResponse}`, a.key)).status).toBe(200);
    },
  },
});
