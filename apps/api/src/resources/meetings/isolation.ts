import type { IsolationCase, IsolationSeed } from '../module.js';
import type { meetingHandlers } from './handlers.js';
import { withChange } from './lifecycle.js';
import { insertMeeting } from './repository.js';

/** A meeting in A's workspace, still pending (written directly: the isolation harness runs no jobs). */
export const seedMeeting: IsolationSeed = async ({ db, a, now }) => {
  const id = `mtg_isolation${Math.random().toString(36).slice(2, 10)}`;
  await insertMeeting(db, {
    id,
    workspaceId: a.workspaceId,
    createdByUserId: a.userId,
    title: 'A private call',
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
    meetingKey: 'meet:abc-defg-hij',
    source: 'simulated_bot',
    sourceFileId: null,
    botName: 'Persona Notetaker',
    joinType: 'immediate',
    joinAt: now,
    completedAt: null,
    status: 'pending',
    statusChanges: withChange([], { code: 'pending' }, now),
    recordingKey: null,
    providerBotId: null,
    providerChangesSeen: 0,
    participantCount: 0,
    analysisStatus: 'pending',
    schemaIds: [],
    schemaRuns: {},
    recordedSeconds: null,
    transcribed: 0,
    cancelledAt: null,
    cancelledBy: null,
    cancelReason: null,
    createdAt: now,
    updatedAt: now,
  });
  return { aMeeting: id };
};

export const meetingIsolation: Record<keyof typeof meetingHandlers, IsolationCase> = {
  listMeetings: async ({ api, expect, notFound }, { a, b, ids }) => {
    notFound(await api.get(`/meetings?workspace_id=${a.workspaceId}`, b.key), 'workspace_id');
    const all = await api.get('/meetings', b.key);
    expect(all.body.data.map((m: { id: string }) => m.id)).not.toContain(ids.aMeeting);
  },
  createMeeting: async ({ api, notFound }, { a, b }) =>
    notFound(await api.post('/meetings', b.key, { workspace_id: a.workspaceId, meeting_url: 'https://meet.google.com/xyz-abcd-efg' }), 'workspace_id'),
  getMeeting: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/meetings/${ids.aMeeting}`, b.key)),
  cancelMeeting: async ({ api, notFound }, { b, ids }) => notFound(await api.post(`/meetings/${ids.aMeeting}/cancel`, b.key, { reason: 'B wants it gone' })),
  getMeetingTranscript: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/meetings/${ids.aMeeting}/transcript`, b.key)),
  getMeetingAnalysis: async ({ api, notFound }, { b, ids }) => notFound(await api.get(`/meetings/${ids.aMeeting}/analysis`, b.key)),
  deleteMeeting: async ({ api, notFound }, { b, ids }) => notFound(await api.delete(`/meetings/${ids.aMeeting}`, b.key)),
};
