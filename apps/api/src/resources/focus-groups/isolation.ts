import { newId } from '../../lib/ids.js';
import type { IsolationCase, IsolationSeed } from '../module.js';
import type { focusGroupHandlers } from './handlers.js';
import { focusGroups } from './table.js';

/** A completed focus group in A's workspace, written directly so A's credits stay untouched. */
export const seedFocusGroup: IsolationSeed = async ({ db, a, now }) => {
  const aFocusGroup = newId('fg');
  await db.insert(focusGroups).values({
    id: aFocusGroup,
    accountId: a.accountId,
    workspaceId: a.workspaceId,
    question: 'A secret question about our pricing?',
    instructions: null,
    personas: [
      { id: 'persona_saas_cfo', name: 'CFO', category: 'Finance' },
      { id: 'persona_restaurant_owner', name: 'Owner', category: 'Hospitality' },
    ],
    status: 'in_progress',
    answers: [null, null],
    createdAt: now,
    updatedAt: now,
  });
  return { aFocusGroup };
};

export const focusGroupIsolation: Record<keyof typeof focusGroupHandlers, IsolationCase> = {
  listFocusGroups: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/focus-groups?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/focus-groups?limit=100', b.key);
    expect(all.body.data.map((group: { id: string }) => group.id)).not.toContain(ids.aFocusGroup);
  },
  createFocusGroup: async ({ api, notFound }, { a, b }) => {
    notFound(
      await api.post('/focus-groups', b.key, {
        question: 'Would you buy this?',
        persona_ids: ['persona_saas_cfo', 'persona_restaurant_owner'],
        workspace_id: a.workspaceId,
      }),
      'workspace_id',
    );
  },
  getFocusGroup: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/focus-groups/${ids.aFocusGroup}`, b.key)),
};
