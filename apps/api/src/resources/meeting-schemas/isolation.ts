import type { IsolationCase, IsolationSeed } from '../module.js';
import type { meetingSchemaHandlers } from './handlers.js';
import { insertSchema } from './repository.js';
import { buildFields } from './rules.js';

/** An unpublished custom schema in A's workspace (the meeting is the meetings module's `aMeeting`). */
export const seedMeetingSchema: IsolationSeed = async ({ db, a, now }) => {
  const id = `msch_isolation${Math.random().toString(36).slice(2, 10)}`;
  await insertSchema(db, {
    id,
    workspaceId: a.workspaceId,
    userId: a.userId,
    isBuiltIn: 0,
    name: 'A private scorecard',
    description: null,
    category: 'custom',
    isPublished: 0,
    version: 1,
    tags: null,
    fields: buildFields([{ name: 'secret_plan', label: 'Secret plan', field_type: 'text' }]),
    listAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return { aMeetingSchema: id };
};

const field = { name: 'budget', label: 'Budget', field_type: 'currency' };

export const meetingSchemaIsolation: Record<keyof typeof meetingSchemaHandlers, IsolationCase> = {
  listMeetingSchemas: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/meetings/schemas?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/meetings/schemas?limit=100', b.key);
    expect(all.body.data.map((schema: { id: string }) => schema.id)).not.toContain(ids.aMeetingSchema);
  },
  createMeetingSchema: async ({ api, notFound }, { a, b }) =>
    notFound(await api.post('/meetings/schemas', b.key, { name: 'Into A', workspace_id: a.workspaceId, fields: [field] }), 'workspace_id'),
  getMeetingSchema: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/meetings/schemas/${ids.aMeetingSchema}`, b.key)),
  updateMeetingSchema: async ({ api, notFound }, { b, ids }) => notFound(await api.patch(`/meetings/schemas/${ids.aMeetingSchema}`, b.key, { name: 'Taken' })),
  deleteMeetingSchema: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/meetings/schemas/${ids.aMeetingSchema}`, b.key)),
  listMeetingSchemaResults: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/meetings/${ids.aMeeting}/schema-results`, b.key)),
  runMeetingSchema: async ({ api, notFound }, { b, ids }) => {
    // B's own meeting cannot name A's schema, and A's meeting is unknown to B.
    notFound(await api.post(`/meetings/${ids.aMeeting}/schema-results`, b.key, { schema_id: 'msch_bantBuiltin' }));
  },
};
