import type { HandlerMap } from '../contract/handler-types.js';
import { errors } from '../http/errors.js';
import { createChatCompletion } from './chat.js';
import { getModel, listModels } from './models.js';
import { createPersona, deletePersona, getPersona, listPersonas, suggestPersonas, updatePersona } from './personas.js';
import { createResponse } from './responses.js';
import { createProject, deleteProject, getProject, listProjects, updateProject } from './projects.js';
import { getUsage } from './usage.js';
import {
  addWorkspaceMember,
  createWorkspace,
  deleteWorkspace,
  getWorkspace,
  listWorkspaceMembers,
  listWorkspaces,
  removeWorkspaceMember,
  updateWorkspace,
  updateWorkspaceMember,
} from './workspaces.js';

/** For an operation whose issue has not landed: 501 `not_implemented` in the error envelope. */
export const notImplemented = async (): Promise<never> => {
  throw errors.notImplemented();
};

/**
 * One handler per operationId of the contract. `satisfies HandlerMap` makes a missing, extra or
 * wrongly typed entry a tsc error; implementing an operation is replacing its `notImplemented`.
 */
export const handlers = {
  // Workspaces
  listWorkspaces,
  createWorkspace,
  getWorkspace,
  updateWorkspace,
  deleteWorkspace,
  listWorkspaceMembers,
  addWorkspaceMember,
  updateWorkspaceMember,
  removeWorkspaceMember,
  // Projects
  listProjects,
  createProject,
  getProject,
  updateProject,
  deleteProject,
  // Usage
  getUsage,
  // Responses, legacy chat, models
  createResponse,
  createChatCompletion,
  listModels,
  getModel,
  // Personas
  listPersonas,
  createPersona,
  suggestPersonas,
  getPersona,
  updatePersona,
  deletePersona,

  // Not implemented yet: answered with 501 until their issues land.
  // Focus groups
  listFocusGroups: notImplemented,
  createFocusGroup: notImplemented,
  getFocusGroup: notImplemented,
  // News
  listNewsStories: notImplemented,
  getNewsStory: notImplemented,
  analyzeNewsStory: notImplemented,
  listNewsDigests: notImplemented,
  createNewsDigest: notImplemented,
  getNewsDigest: notImplemented,
  // Brand voices
  listBrandVoices: notImplemented,
  createBrandVoice: notImplemented,
  getBrandVoice: notImplemented,
  updateBrandVoice: notImplemented,
  deleteBrandVoice: notImplemented,
  // Generations
  listGenerationApps: notImplemented,
  getGenerationApp: notImplemented,
  listGenerations: notImplemented,
  createGeneration: notImplemented,
  getGeneration: notImplemented,
  deleteGeneration: notImplemented,
  // Files
  listFiles: notImplemented,
  createFile: notImplemented,
  createUploadUrl: notImplemented,
  getFile: notImplemented,
  updateFile: notImplemented,
  deleteFile: notImplemented,
  toggleFileFavorite: notImplemented,
  uploadFileContent: notImplemented,
  downloadFileContent: notImplemented,
  // Folders
  listFolders: notImplemented,
  createFolder: notImplemented,
  getFolder: notImplemented,
  updateFolder: notImplemented,
  deleteFolder: notImplemented,
  // Meetings
  listMeetings: notImplemented,
  createMeeting: notImplemented,
  getMeeting: notImplemented,
  cancelMeeting: notImplemented,
  getMeetingTranscript: notImplemented,
  getMeetingAnalysis: notImplemented,
  // Meeting schemas
  listMeetingSchemas: notImplemented,
  createMeetingSchema: notImplemented,
  getMeetingSchema: notImplemented,
  updateMeetingSchema: notImplemented,
  deleteMeetingSchema: notImplemented,
  listMeetingSchemaResults: notImplemented,
  // Video analyses
  listVideoAnalyses: notImplemented,
  createVideoAnalysis: notImplemented,
  getVideoAnalysis: notImplemented,
  chatWithVideoAnalysis: notImplemented,
  // Research agent
  listAgentThreads: notImplemented,
  createAgentThread: notImplemented,
  getAgentThread: notImplemented,
  listAgentMessages: notImplemented,
  createAgentMessage: notImplemented,
} satisfies HandlerMap;
