import type { IsolationCase, IsolationSeed } from '../module.js';
import type { fileHandlers } from './handlers.js';

/** A shared folder, a reference file in it, and an issued upload URL in A's workspace. */
export const seedFiles: IsolationSeed = async ({ api, a }) => {
  const folder = (await api.post('/folders', a.key, { workspace_id: a.workspaceId, name: 'A secret folder', is_shared: true })).body;
  const file = (
    await api.post('/files', a.key, {
      workspace_id: a.workspaceId,
      name: 'A secret file',
      type: 'application/pdf',
      url: 'https://drive.example/a.pdf',
      source: 'google_drive',
      folder_id: folder.id,
    })
  ).body;
  const upload = (await api.post('/files/upload-url', a.key, { workspace_id: a.workspaceId, file_name: 'a.txt', file_type: 'text/plain', file_size: 5 })).body;
  return { aFolder: folder.id, aFile: file.id, aUploadKey: upload.key };
};

/** B's own signed link (upload or download) with A's key put in: the signature does not cover it, a 401. */
async function borrowedLink(
  api: Parameters<IsolationCase>[0]['api'],
  b: Parameters<IsolationCase>[1]['b'],
  which: 'upload_url' | 'public_url',
  aKey: string,
): Promise<string> {
  const own = (await api.post('/files/upload-url', b.key, { workspace_id: b.workspaceId, file_name: 'b.txt', file_type: 'text/plain', file_size: 5 })).body;
  const url = new URL(own[which]);
  return `/uploads/${aKey}${url.search}`;
}

export const fileIsolation: Record<keyof typeof fileHandlers, IsolationCase> = {
  createUploadUrl: async ({ api, notFound }, { a, b }) =>
    notFound(
      await api.post('/files/upload-url', b.key, { workspace_id: a.workspaceId, file_name: 'x.txt', file_type: 'text/plain', file_size: 5 }),
      'workspace_id',
    ),
  uploadFileContent: async ({ api, expect }, { b, ids }) => {
    const res = await api.put(await borrowedLink(api, b, 'upload_url', ids.aUploadKey!), 'hello', { 'content-type': 'text/plain' });
    expect(res.status).toBe(401);
  },
  downloadFileContent: async ({ api, expect }, { b, ids }) => {
    const res = await api.get(await borrowedLink(api, b, 'public_url', ids.aUploadKey!), '');
    expect(res.status).toBe(401);
  },
  createFile: async ({ api, notFound }, { a, b }) =>
    notFound(
      await api.post('/files', b.key, {
        workspace_id: a.workspaceId,
        name: 'Planted',
        type: 'application/pdf',
        url: 'https://drive.example/x.pdf',
        source: 'google_drive',
      }),
      'workspace_id',
    ),
  listFiles: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/files?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/files', b.key);
    expect(all.body.data.map((f: { id: string }) => f.id)).not.toContain(ids.aFile);
  },
  getFile: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/files/${ids.aFile}`, b.key)),
  updateFile: async ({ api, notFound }, { b, ids }) => notFound(await api.patch(`/files/${ids.aFile}`, b.key, { name: 'Renamed by B' })),
  deleteFile: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/files/${ids.aFile}`, b.key)),
  toggleFileFavorite: async ({ api, notFound }, { b, ids }) => notFound(await api.post(`/files/${ids.aFile}/favorite`, b.key)),
};
