import { createOfflineEngine } from '@persona-api/engine';
import type { IsolationCase, IsolationSeed } from '../module.js';
import { newId } from '../../lib/ids.js';
import { loadBundledNewsIfEmpty } from './feeds.js';
import { newsDigests } from './table.js';
import type { newsHandlers } from './handlers.js';

/**
 * Stories are shared by every account (DECISIONS.md), so isolation is about what an analysis can reach:
 * another tenant's custom persona and workspace are unknown (404), and nothing is charged to them.
 */
/** The bundled stories, as on a first start. */
export const seedNews: IsolationSeed = async ({ db, a, now }) => {
  await loadBundledNewsIfEmpty(db, createOfflineEngine(), now);
  // Written directly, so that A's credits stay untouched for the last check.
  const aDigest = newId('dig');
  await db.insert(newsDigests).values({
    id: aDigest,
    accountId: a.accountId,
    workspaceId: a.workspaceId,
    personaId: 'persona_saas_cfo',
    persona: { id: 'persona_saas_cfo', name: 'CFO', category: 'Finance' },
    title: 'A secret digest',
    summary: 'Nothing.',
    keyTakeaways: [],
    period: 'last_7_days',
    topics: [],
    periodStart: now,
    periodEnd: now,
    items: [],
    promptTokens: 1,
    completionTokens: 1,
    creditsUsed: 1,
    createdAt: now,
  });
  return { aDigest };
};

export const newsIsolation: Record<keyof typeof newsHandlers, IsolationCase> = {
  listNewsStories: async ({ api, expect }, { b }) => expect((await api.get('/news/stories?limit=5', b.key)).status).toBe(200),
  getNewsStory: async ({ api, notFound }, { b }) => notFound(await api.get('/news/stories/story_doesNotExist12', b.key)),
  analyzeNewsStory: async ({ api, notFound }, { a, b, ids }) => {
    const [story] = (await api.get('/news/stories?limit=1', b.key)).body.data;
    notFound(await api.post(`/news/stories/${story.id}/analyze`, b.key, { persona_id: ids.aPersona }), 'persona_id');
    notFound(await api.post(`/news/stories/${story.id}/analyze`, b.key, { persona_id: 'persona_saas_cfo', workspace_id: a.workspaceId }), 'workspace_id');
  },
  listNewsDigests: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/news/digests?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    expect((await api.get('/news/digests?limit=100', b.key)).body.data.map((digest: { id: string }) => digest.id)).not.toContain(ids.aDigest);
  },
  createNewsDigest: async ({ api, notFound }, { a, b, ids }) => {
    notFound(await api.post('/news/digests', b.key, { persona_id: 'persona_saas_cfo', workspace_id: a.workspaceId }), 'workspace_id');
    notFound(await api.post('/news/digests', b.key, { persona_id: ids.aPersona }), 'persona_id');
  },
  getNewsDigest: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/news/digests/${ids.aDigest}`, b.key)),
};
