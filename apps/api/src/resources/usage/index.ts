import { resourceModule } from '../module.js';
import { getUsage } from './handlers.js';

export const usageModule = resourceModule({
  tag: 'Usage',
  handlers: { getUsage },
  isolation: {
    getUsage: async ({ api, expect }, { a, b }) => {
      const usage = (await api.get('/usage', b.key)).body;
      expect(usage.api_requests.by_key.map((k: { api_key_id: string }) => k.api_key_id)).not.toContain(a.apiKeyId);
      expect(usage.credits.remaining).toBe(500);
    },
  },
});
