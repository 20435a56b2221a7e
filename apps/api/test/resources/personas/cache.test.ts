// A model call reads a custom persona once per user and id (resources/personas/cache.ts), and every change
// that alters what it says or who may use it is honoured at once by every instance: two apps on one
// database (on PostgreSQL through two connection pools, as two processes would be).
import { createOfflineEngine, type Engine, type GenerateRequest } from '@persona-api/engine';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../src/db/client.js';
import { personas } from '../../../src/db/schema/index.js';
import { announcePersonasChanged } from '../../../src/resources/personas/cache.js';
import { eventually } from '../../support/ai.js';
import { Harness, type Tenant } from '../../support/harness.js';

/** The offline engine, noting the system prompt of every answer it gives. */
function recordingEngine(prompts: string[]): Engine {
  const engine = createOfflineEngine();
  const noted = (request: GenerateRequest) => {
    prompts.push(request.persona?.system_prompt ?? '');
    return request;
  };
  return new Proxy(engine, {
    get(target, property, receiver) {
      if (property === 'generate') return (request: GenerateRequest, signal?: AbortSignal) => target.generate(noted(request), signal);
      if (property === 'stream') return (request: GenerateRequest, signal?: AbortSignal) => target.stream(noted(request), signal);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const prompts: string[] = [];
let h: Harness;
let other: Harness;
let otherDatabase: DatabaseHandle | null = null;
let owner: Tenant;
let member: Tenant;
let personaId: string;

beforeAll(async () => {
  h = await Harness.create({ engine: recordingEngine(prompts) });
  const connection = h.database.connection;
  // PGlite is one process's database: the second app shares its handle (notifications still go through it).
  otherDatabase = connection.driver === 'postgres' ? await openDatabase({ driver: 'postgres', url: connection.url, poolSize: 2 }) : null;
  other = await Harness.create({ database: otherDatabase ?? h.database, engine: recordingEngine(prompts) });
  owner = await h.tenant({ credits: 100_000 });
  member = await h.tenant({ credits: 100_000 });
  expect((await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: member.email, role: 'editor' })).status).toBe(200);
  const created = await h.post('/personas', owner.key, { description: 'Head of finance at a 40-person logistics firm, wary of per-seat pricing.' });
  expect(created.status).toBe(200);
  personaId = created.body.id;
});
afterAll(async () => {
  await other?.close();
  await h?.close();
  await otherDatabase?.close();
});

const ask = (harness: Harness, tenant: Tenant) =>
  harness.post('/responses', tenant.key, { model: 'service-1', persona_id: personaId, input: 'Would you pay for this?' });
/** The system prompt the last answer was given, after a call that must succeed. */
async function promptOfCall(harness: Harness, tenant: Tenant): Promise<string> {
  const res = await ask(harness, tenant);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return prompts.at(-1)!;
}

describe('custom personas of model calls, cached', () => {
  it('answers from the cached persona until a change is announced, then reads it again on every instance', async () => {
    const first = await promptOfCall(h, member);
    expect(first).toContain('logistics');
    expect(await promptOfCall(other, member)).toBe(first);
    // Changed behind the cache's back (no announcement): both instances keep what they read.
    await h.db.update(personas).set({ name: 'Quietly renamed' }).where(eq(personas.id, personaId));
    expect(await promptOfCall(h, member)).toBe(first);
    expect(await promptOfCall(other, member)).toBe(first);
    await announcePersonasChanged(h.db);
    await eventually(
      async () => (await promptOfCall(h, member)).includes('Quietly renamed') && (await promptOfCall(other, member)).includes('Quietly renamed'),
    );
  });

  it('uses an updated persona from the next call on, on this instance at once and on the other soon after', async () => {
    await promptOfCall(other, member); // cached on the other instance
    expect((await h.patch(`/personas/${personaId}`, owner.key, { name: 'Dana Ortiz, finance lead' })).status).toBe(200);
    expect(await promptOfCall(h, member)).toContain('You are Dana Ortiz.');
    await eventually(async () => (await promptOfCall(other, member)).includes('You are Dana Ortiz.'));
  });

  it('refuses the persona to a member removed from its workspace, on every instance', async () => {
    await promptOfCall(h, member);
    await promptOfCall(other, member);
    expect((await h.delete(`/workspaces/${owner.workspaceId}/members/${member.userId}`, owner.key)).status).toBe(200);
    const refused = await ask(h, member);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'resource_not_found', param: 'persona_id' });
    await eventually(async () => (await ask(other, member)).status === 404);
    // The owner still answers as it.
    expect(await promptOfCall(h, owner)).toContain('You are Dana Ortiz.');
  });

  it('refuses a deleted persona, on every instance', async () => {
    await promptOfCall(other, owner);
    expect((await h.delete(`/personas/${personaId}`, owner.key)).status).toBe(200);
    expect((await ask(h, owner)).status).toBe(404);
    await eventually(async () => (await ask(other, owner)).status === 404);
  });
});
