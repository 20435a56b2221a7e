import { newId } from '../../lib/ids.js';
import type { IsolationCase, IsolationSeed } from '../module.js';
import type { generationHandlers } from './handlers.js';
import { generations } from './table.js';

/** A stored generation in A's workspace, written directly so no model call or charge is involved. */
export const seedGeneration: IsolationSeed = async ({ db, a, now }) => {
  const aGeneration = newId('gen');
  await db.insert(generations).values({
    id: aGeneration,
    workspaceId: a.workspaceId,
    projectId: null,
    createdByUserId: a.userId,
    title: 'A secret launch post',
    output: 'Secret launch copy.',
    contentType: 'markdown',
    appId: 'app_linkedin_post',
    app: { id: 'app_linkedin_post', name: 'LinkedIn Post', category: 'social_post' },
    brandVoice: null,
    persona: null,
    inputData: { topic: 'A secret launch' },
    promptTokens: 10,
    completionTokens: 10,
    creditsUsed: 1,
    createdAt: now,
    updatedAt: now,
  });
  return { aGeneration };
};

export const generationIsolation: Record<keyof typeof generationHandlers, IsolationCase> = {
  // The catalog is global: B sees the same apps, and nothing of A's.
  listGenerationApps: async ({ api, expect }, { b }) => {
    const res = await api.get('/generation-apps', b.key);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('secret');
  },
  getGenerationApp: async ({ api, expect }, { b }) => expect((await api.get('/generation-apps/app_linkedin_post', b.key)).status).toBe(200),
  listGenerations: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/generations?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/generations', b.key);
    expect(all.body.data.map((g: { id: string }) => g.id)).not.toContain(ids.aGeneration);
  },
  createGeneration: async ({ api, notFound }, { a, b }) =>
    notFound(
      await api.post('/generations', b.key, { app_id: 'app_linkedin_post', input_data: { topic: 'Planted in A’s workspace.' }, workspace_id: a.workspaceId }),
      'workspace_id',
    ),
  getGeneration: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/generations/${ids.aGeneration}`, b.key)),
  deleteGeneration: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/generations/${ids.aGeneration}`, b.key)),
};
