import type { IsolationCase } from '../module.js';
import type { workspaceHandlers } from './handlers.js';

export const workspaceIsolation: Record<keyof typeof workspaceHandlers, IsolationCase> = {
  listWorkspaces: async ({ api, expect }, { a, b }) => {
    const res = await api.get('/workspaces?include_members=true', b.key);
    expect(res.body.data.map((w: { id: string }) => w.id)).not.toContain(a.workspaceId);
    expect(JSON.stringify(res.body)).not.toContain(a.email);
  },
  createWorkspace: async ({ api, notFound }, { a, b }) => {
    const res = await api.post('/workspaces', b.key, { name: 'B only' });
    notFound(await api.get(`/workspaces/${res.body.id}`, a.key));
  },
  getWorkspace: async ({ api, notFound }, { a, b }) => notFound(await api.get(`/workspaces/${a.workspaceId}?include_members=true`, b.key)),
  updateWorkspace: async ({ api, notFound }, { a, b }) => notFound(await api.patch(`/workspaces/${a.workspaceId}`, b.key, { name: 'Taken over' })),
  deleteWorkspace: async ({ api, notFound }, { a, b }) => notFound(await api.delete(`/workspaces/${a.workspaceId}`, b.key)),
  listWorkspaceMembers: async ({ api, notFound }, { a, b }) => notFound(await api.get(`/workspaces/${a.workspaceId}/members`, b.key)),
  addWorkspaceMember: async ({ api, notFound }, { a, b }) =>
    notFound(await api.post(`/workspaces/${a.workspaceId}/members`, b.key, { email: 'spy@b.example', role: 'manager' })),
  updateWorkspaceMember: async ({ api, notFound }, { a, b, aMember }) => {
    notFound(await api.patch(`/workspaces/${a.workspaceId}/members/${aMember.userId}`, b.key, { role: 'viewer' }));
    // A's user is no member of B's workspace either.
    notFound(await api.patch(`/workspaces/${b.workspaceId}/members/${aMember.userId}`, b.key, { role: 'viewer' }), 'user_id');
  },
  removeWorkspaceMember: async ({ api, notFound }, { a, b, aMember }) => {
    notFound(await api.delete(`/workspaces/${a.workspaceId}/members/${aMember.userId}`, b.key));
    notFound(await api.delete(`/workspaces/${b.workspaceId}/members/${a.userId}`, b.key), 'user_id');
  },
};
