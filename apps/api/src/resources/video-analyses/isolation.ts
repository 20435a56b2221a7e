import { newId } from '../../lib/ids.js';
import { insertFileRow } from '../files/repository.js';
import type { IsolationCase, IsolationSeed } from '../module.js';
import type { videoAnalysisHandlers } from './handlers.js';
import { videoAnalyses } from './table.js';

/** A video analysis and an uploaded video in A's workspace, written directly (A's credits stay untouched). */
export const seedVideoAnalysis: IsolationSeed = async ({ db, a, now }) => {
  const aVideoAnalysis = newId('va');
  await db.insert(videoAnalyses).values({
    id: aVideoAnalysis,
    workspaceId: a.workspaceId,
    status: 'pending',
    videoUrl: 'https://videos.example/a-secret.mp4',
    title: 'A secret video',
    brand: '',
    product: '',
    primaryIntent: '',
    secondaryIntent: '',
    tertiaryIntent: '',
    goal: '',
    chunkDuration: 10,
    framesPerChunk: 4,
    creditsUsed: 100,
    createdAt: now,
    updatedAt: now,
  });
  const aVideoFile = newId('file');
  await insertFileRow(db, {
    id: aVideoFile,
    workspaceId: a.workspaceId,
    name: 'a-secret.mp4',
    type: 'video/mp4',
    sizeBytes: 10,
    createdAt: now,
    updatedAt: now,
  });
  return { aVideoAnalysis, aVideoFile };
};

export const videoAnalysisIsolation: Record<keyof typeof videoAnalysisHandlers, IsolationCase> = {
  listVideoAnalyses: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/video-analyses?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/video-analyses?limit=100', b.key);
    expect(all.body.data.map((v: { id: string }) => v.id)).not.toContain(ids.aVideoAnalysis);
  },
  createVideoAnalysis: async ({ api, notFound }, { a, b, ids }) => {
    notFound(await api.post('/video-analyses', b.key, { video_url: 'https://videos.example/planted.mp4', workspace_id: a.workspaceId }), 'workspace_id');
    // A's file from B's own workspace is unknown.
    notFound(await api.post('/video-analyses', b.key, { file_id: ids.aVideoFile }), 'file_id');
  },
  getVideoAnalysis: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/video-analyses/${ids.aVideoAnalysis}`, b.key)),
  chatWithVideoAnalysis: async ({ api, notFound }, { b, ids }) =>
    notFound(await api.post(`/video-analyses/${ids.aVideoAnalysis}/chat`, b.key, { messages: [{ role: 'user', content: 'What is on screen?' }] })),
  deleteVideoAnalysis: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/video-analyses/${ids.aVideoAnalysis}`, b.key)),
  // No API key authorises a frame, only a link signed by the server: B's key with a made-up link is refused.
  downloadVideoAnalysisFrame: async ({ api, expect }, { b, ids }) => {
    const res = await api.get(`/video-analyses/${ids.aVideoAnalysis}/frames/0?expires=32503680000&signature=${'0'.repeat(64)}`, b.key);
    expect(res.status).toBe(401);
  },
};
