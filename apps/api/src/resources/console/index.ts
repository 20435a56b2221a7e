import { resourceModule, type IsolationCase } from '../module.js';
import {
  completeConsoleSetup,
  createBrowserKey,
  createConsoleApiKey,
  getConsoleSession,
  listConsoleApiKeys,
  revokeConsoleApiKey,
  rotateConsoleApiKey,
  signIn,
  signOut,
} from './handlers.js';
import { consoleJobs } from './purge.js';
import { getConsoleUsageBreakdown } from './usage.js';

/** An API key opens no console operation: they need a session cookie (test/resources/console.test.ts covers sessions). */
const apiKeyIsNoSession =
  (call: 'get' | 'post' | 'delete', path: (ids: Record<string, string>, aKeyId: string) => string): IsolationCase =>
  async ({ api, expect }, { a, b, ids }) => {
    const target = path(ids, a.apiKeyId);
    const response = call === 'post' ? await api.post(target, b.key, {}) : await api[call](target, b.key);
    expect(response.status).toBe(call === 'post' && target.endsWith('/session') ? 400 : 401);
  };

export const consoleModule = resourceModule({
  tag: 'Console',
  handlers: {
    signIn,
    completeConsoleSetup,
    getConsoleSession,
    signOut,
    createBrowserKey,
    listConsoleApiKeys,
    createConsoleApiKey,
    revokeConsoleApiKey,
    rotateConsoleApiKey,
    getConsoleUsageBreakdown,
  },
  jobs: consoleJobs,
  isolation: {
    // Sign-in and setup take no key: B's key with an empty body is a validation error, never A's session.
    signIn: apiKeyIsNoSession('post', () => '/console/session'),
    completeConsoleSetup: async ({ api, expect }, { b }) => {
      expect((await api.post('/console/setup', b.key, {})).status).toBe(400);
    },
    getConsoleSession: apiKeyIsNoSession('get', () => '/console/session'),
    signOut: apiKeyIsNoSession('delete', () => '/console/session'),
    createBrowserKey: apiKeyIsNoSession('post', () => '/console/session/browser-key'),
    listConsoleApiKeys: apiKeyIsNoSession('get', () => '/console/api-keys'),
    createConsoleApiKey: async ({ api, expect }, { b }) => {
      expect((await api.post('/console/api-keys', b.key, { name: 'x' })).status).toBe(401);
    },
    revokeConsoleApiKey: apiKeyIsNoSession('post', (_ids, aKeyId) => `/console/api-keys/${aKeyId}/revoke`),
    rotateConsoleApiKey: apiKeyIsNoSession('post', (_ids, aKeyId) => `/console/api-keys/${aKeyId}/rotate`),
    getConsoleUsageBreakdown: apiKeyIsNoSession('get', () => '/console/usage'),
  },
});
