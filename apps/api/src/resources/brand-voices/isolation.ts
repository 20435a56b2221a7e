import { newId } from '../../lib/ids.js';
import type { IsolationCase, IsolationSeed } from '../module.js';
import type { brandVoiceHandlers } from './handlers.js';
import { emptyVoice } from './mapper.js';
import { brandVoices } from './table.js';

/** A failed (final) voice in A's workspace, written directly so no job or charge is involved. */
export const seedBrandVoice: IsolationSeed = async ({ db, a, now }) => {
  const aBrandVoice = newId('bv');
  await db.insert(brandVoices).values({
    id: aBrandVoice,
    workspaceId: a.workspaceId,
    label: 'A secret voice',
    usageContext: 'Fixture of the isolation walk.',
    status: 'failed',
    error: 'Fixture.',
    ...emptyVoice(),
    sources: { urls: [], documents: [] },
    creditsCharged: 0,
    createdAt: now,
    updatedAt: now,
  });
  return { aBrandVoice };
};

export const brandVoiceIsolation: Record<keyof typeof brandVoiceHandlers, IsolationCase> = {
  listBrandVoices: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/brand-voices?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/brand-voices', b.key);
    expect(all.body.data.map((v: { id: string }) => v.id)).not.toContain(ids.aBrandVoice);
  },
  createBrandVoice: async ({ api, notFound }, { a, b }) =>
    notFound(
      await api.post('/brand-voices', b.key, {
        label: 'Planted',
        usage_context: 'Planted in A’s workspace.',
        workspace_id: a.workspaceId,
        sources: { urls: [{ url: 'https://example.com/' }] },
      }),
      'workspace_id',
    ),
  getBrandVoice: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/brand-voices/${ids.aBrandVoice}`, b.key)),
  updateBrandVoice: async ({ api, notFound }, { b, ids }) => notFound(await api.patch(`/brand-voices/${ids.aBrandVoice}`, b.key, { label: 'Renamed by B' })),
  deleteBrandVoice: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/brand-voices/${ids.aBrandVoice}`, b.key)),
};
