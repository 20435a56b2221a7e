import type { IsolationCase, IsolationSeed } from '../module.js';
import type { projectHandlers } from './handlers.js';

/** A project in A's workspace. */
export const seedProject: IsolationSeed = async ({ api, a }) => ({
  aProject: (await api.post('/projects', a.key, { workspace_id: a.workspaceId, name: 'A secret project' })).body.id,
});

export const projectIsolation: Record<keyof typeof projectHandlers, IsolationCase> = {
  listProjects: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/projects?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/projects', b.key);
    expect(all.body.data.map((p: { id: string }) => p.id)).not.toContain(ids.aProject);
  },
  createProject: async ({ api, notFound }, { a, b }) =>
    notFound(await api.post('/projects', b.key, { workspace_id: a.workspaceId, name: 'Planted' }), 'workspace_id'),
  getProject: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/projects/${ids.aProject}`, b.key)),
  updateProject: async ({ api, notFound }, { b, ids }) => notFound(await api.patch(`/projects/${ids.aProject}`, b.key, { name: 'Renamed by B' })),
  deleteProject: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/projects/${ids.aProject}`, b.key)),
};
