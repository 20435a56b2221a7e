import { resourceModule } from '../module.js';
import { modelHandlers } from './handlers.js';

export const modelsModule = resourceModule({
  tag: 'Models',
  handlers: modelHandlers,
  // Models hold no tenant data: both tenants see the same.
  isolation: {
    listModels: async ({ api, expect }, { a, b }) => expect((await api.get('/models', b.key)).body).toEqual((await api.get('/models', a.key)).body),
    getModel: async ({ api, expect }, { a, b }) =>
      expect((await api.get('/models/service-1', b.key)).body).toEqual((await api.get('/models/service-1', a.key)).body),
  },
});
