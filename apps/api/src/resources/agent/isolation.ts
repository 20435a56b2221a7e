import { newId } from '../../lib/ids.js';
import type { IsolationCase, IsolationSeed } from '../module.js';
import type { agentHandlers } from './handlers.js';
import { insertThread } from './repository.js';
import { agentMessages } from './table.js';

/** A thread of A's with a question and an answer, written directly so A's credits stay untouched. */
export const seedAgentThread: IsolationSeed = async ({ db, a, now }) => {
  const aThread = newId('thr');
  await db.transaction((tx) =>
    insertThread(tx, {
      id: aThread,
      workspaceId: a.workspaceId,
      projectId: null,
      createdByUserId: null,
      personaId: null,
      title: 'A secret market study',
      titlePending: false,
      messageCount: 2,
      creditsUsed: 0,
      lastMessageAt: now,
      createdAt: now,
      updatedAt: now,
    }),
  );
  const message = { threadId: aThread, sources: [], createdAt: now, updatedAt: now, status: 'completed' as const };
  await db.insert(agentMessages).values([
    { ...message, id: newId('msg'), role: 'user', content: 'What do our secret documents say?' },
    { ...message, id: newId('msg'), role: 'assistant', content: 'Nothing found.', createdAt: new Date(now.getTime() + 1) },
  ]);
  return { aThread };
};

export const agentIsolation: Record<keyof typeof agentHandlers, IsolationCase> = {
  listAgentThreads: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/agent/threads?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/agent/threads?limit=100', b.key);
    expect(all.body.data.map((thread: { id: string }) => thread.id)).not.toContain(ids.aThread);
  },
  createAgentThread: async ({ api, notFound }, { a, b }) => {
    notFound(await api.post('/agent/threads', b.key, { workspace_id: a.workspaceId }), 'workspace_id');
  },
  getAgentThread: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/agent/threads/${ids.aThread}`, b.key)),
  updateAgentThread: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.patch(`/agent/threads/${ids.aThread}`, b.key, { title: 'Taken over' }));
    expect((await api.get(`/agent/threads/${ids.aThread}`, a.key)).body.title).toBe('A secret market study');
  },
  deleteAgentThread: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.delete(`/agent/threads/${ids.aThread}`, b.key));
    expect((await api.get(`/agent/threads/${ids.aThread}`, a.key)).status).toBe(200);
  },
  listAgentMessages: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/agent/threads/${ids.aThread}/messages`, b.key)),
  createAgentMessage: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.post(`/agent/threads/${ids.aThread}/messages`, b.key, { content: 'Tell me the secret.' }));
    expect((await api.get(`/agent/threads/${ids.aThread}`, a.key)).body.message_count).toBe(2);
  },
};
