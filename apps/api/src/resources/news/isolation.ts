import { createOfflineEngine } from '@persona-api/engine';
import type { IsolationCase, IsolationSeed } from '../module.js';
import { loadBundledNewsIfEmpty } from './feeds.js';
import type { newsHandlers } from './handlers.js';

/**
 * Stories are shared by every account (DECISIONS.md), so isolation is about what an analysis can reach:
 * another tenant's custom persona and workspace are unknown (404), and nothing is charged to them.
 */
/** The bundled stories, as on a first start. */
export const seedNews: IsolationSeed = async ({ db, now }) => {
  await loadBundledNewsIfEmpty(db, createOfflineEngine(), now);
  return {};
};

export const newsIsolation: Record<keyof typeof newsHandlers, IsolationCase> = {
  listNewsStories: async ({ api, expect }, { b }) => expect((await api.get('/news/stories?limit=5', b.key)).status).toBe(200),
  getNewsStory: async ({ api, notFound }, { b }) => notFound(await api.get('/news/stories/story_doesNotExist12', b.key)),
  analyzeNewsStory: async ({ api, notFound }, { a, b, ids }) => {
    const [story] = (await api.get('/news/stories?limit=1', b.key)).body.data;
    notFound(await api.post(`/news/stories/${story.id}/analyze`, b.key, { persona_id: ids.aPersona }), 'persona_id');
    notFound(await api.post(`/news/stories/${story.id}/analyze`, b.key, { persona_id: 'persona_saas_cfo', workspace_id: a.workspaceId }), 'workspace_id');
  },
};
