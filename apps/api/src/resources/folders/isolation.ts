import type { IsolationCase } from '../module.js';
import type { folderHandlers } from './handlers.js';

// The folder is made by the files module's seed (seedFiles): a shared folder in A's workspace.
export const folderIsolation: Record<keyof typeof folderHandlers, IsolationCase> = {
  createFolder: async ({ api, notFound }, { a, b }) =>
    notFound(await api.post('/folders', b.key, { workspace_id: a.workspaceId, name: 'Planted' }), 'workspace_id'),
  listFolders: async ({ api, notFound }, { a, b }) => notFound(await api.get(`/folders?workspace_id=${a.workspaceId}`, b.key), 'workspace_id'),
  getFolder: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/folders/${ids.aFolder}`, b.key)),
  updateFolder: async ({ api, notFound }, { b, ids }) => notFound(await api.patch(`/folders/${ids.aFolder}`, b.key, { name: 'Renamed by B' })),
  deleteFolder: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/folders/${ids.aFolder}?delete_files=true`, b.key)),
};
