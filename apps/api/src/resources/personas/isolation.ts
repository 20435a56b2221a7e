import { eq } from 'drizzle-orm';
import { insertFileRow } from '../files/repository.js';
import { newId } from '../../lib/ids.js';
import type { IsolationCase, IsolationSeed } from '../module.js';
import type { personaHandlers } from './handlers.js';
import { personas } from './table.js';

/** A custom persona in A's workspace, and a file there (for suggestion sources). */
export const seedPersona: IsolationSeed = async ({ db, a, now }) => {
  // Written directly, so that A's credits stay untouched for the last check.
  const [template] = await db.select().from(personas).where(eq(personas.id, 'persona_saas_cfo'));
  if (!template) throw new Error('the base persona catalog is not seeded');
  const aPersona = newId('cp');
  await db.insert(personas).values({
    ...template,
    id: aPersona,
    isCustom: true,
    accountId: a.accountId,
    workspaceId: a.workspaceId,
    name: 'A secret persona',
    aiGenerated: { confidence: 0.5, rationale: 'Fixture.' },
    createdAt: now,
    updatedAt: now,
  });
  const aFile = newId('file');
  await insertFileRow(db, { id: aFile, workspaceId: a.workspaceId, name: 'a-survey.pdf', sizeBytes: 10, createdAt: now, updatedAt: now });
  return { aPersona, aFile };
};

export const personaIsolation: Record<keyof typeof personaHandlers, IsolationCase> = {
  listPersonas: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/personas?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const custom = await api.get('/personas?is_custom=true&limit=100', b.key);
    expect(custom.body.data.map((p: { id: string }) => p.id)).not.toContain(ids.aPersona);
  },
  createPersona: async ({ api, notFound }, { a, b }) =>
    notFound(await api.post('/personas', b.key, { description: 'A persona planted in A’s workspace.', workspace_id: a.workspaceId }), 'workspace_id'),
  getPersona: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/personas/${ids.aPersona}`, b.key)),
  updatePersona: async ({ api, notFound }, { b, ids }) => notFound(await api.patch(`/personas/${ids.aPersona}`, b.key, { name: 'Renamed by B' })),
  deletePersona: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/personas/${ids.aPersona}`, b.key)),
  suggestPersonas: async ({ api, notFound }, { b, ids }) =>
    notFound(
      await api.post('/personas/suggestions', b.key, {
        business_description: 'Meal kits for families.',
        target_customers: ['Parents'],
        goals: ['Grow'],
        sources: [{ type: 'file', file_id: ids.aFile }],
      }),
      'sources.0.file_id',
    ),
};
