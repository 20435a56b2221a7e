import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspaceFor } from '../../src/admin/accounts.js';
import { reconcileCounts } from '../../src/billing/reconcile.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { files } from '../../src/db/schema/index.js';
import type { JobRuntime } from '../../src/jobs/queue.js';
import { uploadObjectKey } from '../../src/resources/files/keys.js';
import { BUILT_IN_SCHEMAS } from '../../src/resources/meeting-schemas/built-ins.js';
import { schemaResultJobs } from '../../src/resources/meeting-schemas/jobs.js';
import { meetingJobs, type MeetingJobDeps } from '../../src/resources/meetings/jobs.js';
import { simulatorProvider } from '../../src/resources/meetings/simulator.js';
import { fakeUpstreamEngine, SwitchableEngine } from '../support/ai.js';
import { openTestDatabase } from '../support/database.js';
import { errorOf, TestClock, useHarness, useTenant, type Tenant } from '../support/harness.js';
import { openTestJobQueue } from '../support/jobs.js';
import { MemoryStorage } from './files/memory-storage.js';

// Meeting schemas and schema results: built-ins, custom schemas with every field type and the server
// rules, versioning, marketplace visibility, read-only built-ins and others' schemas, roles; results made
// after an imported call (quotes verified against the transcript, evidence with real speakers and times,
// the weighted overall score), run again on a done meeting, on both engines.

const fixture = (name: string) => readFileSync(new URL(`./meetings/fixtures/${name}`, import.meta.url));
const storage = new MemoryStorage();
const clock = new TestClock();
const engine = new SwitchableEngine();
let database: DatabaseHandle;
let queue: JobRuntime;

afterAll(async () => {
  await queue?.stop({ timeoutMs: 1000 });
  await database?.close();
});

const h = useHarness(async () => {
  database = await openTestDatabase();
  const deps: MeetingJobDeps = { db: database.db, storage, clock, engine, bot: simulatorProvider(clock), jobs: undefined as unknown as MeetingJobDeps['jobs'] };
  queue = await openTestJobQueue(database, [...meetingJobs(deps), ...schemaResultJobs({ db: database.db, engine, clock })]);
  deps.jobs = queue;
  return { database, clock, engine, services: { jobs: queue, storage } };
});
const t = useTenant(h);

let uploads = 0;
async function importCall(tenant: Tenant, name: string, type: string, schemaIds: string[] = []) {
  const id = `file_schematest${++uploads}${process.pid}`;
  const key = `upl_schematest${String(uploads).padStart(4, '0')}abcdef.${name.split('.').pop()}`;
  const bytes = fixture(name);
  const now = clock.now();
  await database.db
    .insert(files)
    .values({ id, workspaceId: tenant.workspaceId, name, type, sizeBytes: bytes.length, size: bytes.length, storageKey: key, createdAt: now, updatedAt: now });
  await storage.put(uploadObjectKey(key), Readable.from([bytes]), { contentType: type });
  const created = await h.post('/meetings', tenant.key, { workspace_id: tenant.workspaceId, transcript_file_id: id, schema_ids: schemaIds });
  expect(created.status).toBe(200);
  return created.body;
}

/** Every field type, two of them scored. */
const everyType = [
  {
    name: 'budget',
    label: 'Budget',
    field_type: 'currency',
    is_required: true,
    requires_evidence: true,
    scoring_enabled: true,
    scoring_rubric: {
      max_score: 10,
      weight: 3,
      criteria: [
        { score: 0, description: 'No budget.' },
        { score: 10, description: 'Budget approved for tooling this year.' },
      ],
    },
    crm_field_mapping: { salesforce: 'Opportunity.Budget__c' },
  },
  { name: 'summary', label: 'Pain summary', field_type: 'long_text', requires_evidence: true },
  { name: 'current_process', label: 'Current process', field_type: 'text' },
  { name: 'seats', label: 'Number of reps', field_type: 'number', requires_evidence: true },
  { name: 'go_live', label: 'Go-live date', field_type: 'date', requires_evidence: true },
  { name: 'security_review', label: 'Security review required', field_type: 'boolean', requires_evidence: true },
  { name: 'stage', label: 'Deal stage', field_type: 'enum', enum_options: ['evaluation', 'negotiation', 'closed'] },
  { name: 'competitors', label: 'Competitors', field_type: 'multi_enum', enum_options: ['Gong', 'Chorus', 'Clari'], requires_evidence: true },
  { name: 'feature_requests', label: 'Feature requests', field_type: 'list', requires_evidence: true },
  {
    name: 'champion',
    label: 'Champion',
    field_type: 'person',
    requires_evidence: true,
    scoring_enabled: true,
    scoring_rubric: {
      max_score: 5,
      criteria: [
        { score: 0, description: 'No champion.' },
        { score: 5, description: 'A named champion is excited.' },
      ],
    },
  },
];

async function createSchema(tenant: Tenant, extra: Record<string, unknown> = {}) {
  const response = await h.post('/meetings/schemas', tenant.key, {
    name: 'Enterprise deal review',
    workspace_id: tenant.workspaceId,
    fields: everyType,
    ...extra,
  });
  expect(response.status).toBe(200);
  return response.body;
}

async function member(owner: Tenant, role: string): Promise<Tenant> {
  const person = await h.tenant();
  expect((await h.post(`/workspaces/${owner.workspaceId}/members`, owner.key, { email: person.email, role })).status).toBe(200);
  return { ...person, workspaceId: owner.workspaceId };
}

describe('built-in schemas', () => {
  it('lists the built-ins first, with real fields and rubrics, read-only', async () => {
    const mine = await createSchema(t);
    const list = (await h.get('/meetings/schemas?limit=100', t.key)).body;
    const ids = list.data.map((schema: { id: string }) => schema.id);
    expect(ids.slice(0, BUILT_IN_SCHEMAS.length)).toEqual(BUILT_IN_SCHEMAS.map((schema) => schema.id));
    expect(ids).toContain(mine.id);
    expect(new Set(list.data.slice(0, 6).map((schema: { category: string }) => schema.category))).toEqual(
      new Set(['sales_discovery', 'qualification', 'objection_competitor', 'cs_health', 'product_feedback']),
    );
    const bant = (await h.get('/meetings/schemas/msch_bantBuiltin', t.key)).body;
    expect(bant).toMatchObject({ is_built_in: true, is_published: true, author_name: 'Persona API', workspace_id: null, is_marketplace: false, version: 1 });
    expect(bant.fields.map((field: { name: string }) => field.name)).toEqual(['budget', 'authority', 'need', 'timeline', 'buying_stage']);
    expect(bant.fields[0]).toMatchObject({ id: 'msf_bant_budget', field_type: 'currency', scoring_enabled: true, scoring_rubric: { max_score: 10 } });
    expect(bant.fields[0].scoring_rubric.criteria.length).toBeGreaterThanOrEqual(3);
    expect(errorOf(await h.patch('/meetings/schemas/msch_bantBuiltin', t.key, { name: 'Mine now' })).code).toBe('permission_denied');
    expect(errorOf(await h.delete('/meetings/schemas/msch_bantBuiltin', t.key)).code).toBe('permission_denied');

    const noBuiltIns = (await h.get('/meetings/schemas?include_built_in=false&limit=100', t.key)).body;
    expect(noBuiltIns.data.every((schema: { is_built_in: boolean }) => !schema.is_built_in)).toBe(true);
    const cs = (await h.get('/meetings/schemas?category=cs_health', t.key)).body;
    expect(cs.data.map((schema: { id: string }) => schema.id)).toEqual(['msch_csHealthBuiltin']);
    // Pages of 2 walk the same order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; next_cursor: string | null } = (await h.get(`/meetings/schemas?limit=2${cursor ? `&cursor=${cursor}` : ''}`, t.key))
        .body;
      paged.push(...page.data.map((schema) => schema.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(ids);
  });
});

describe('custom schemas', () => {
  it('creates a schema with every field type, ids per field, order by position', async () => {
    const schema = await createSchema(t, { tags: ['enterprise'], category: 'qualification', description: 'For deals over $50k.' });
    expect(schema).toMatchObject({
      object: 'meeting.schema',
      is_built_in: false,
      is_published: false,
      is_marketplace: false,
      version: 1,
      workspace_id: t.workspaceId,
      user_id: t.userId,
      author_name: null,
      downloads: null,
      average_rating: null,
      field_count: everyType.length,
      usage_count: 0,
      category: 'qualification',
    });
    expect(schema.fields.map((field: { order: number }) => field.order)).toEqual(everyType.map((_, index) => index));
    expect(schema.fields.every((field: { id: string }) => /^msf_/.test(field.id))).toBe(true);
    expect(schema.fields[0]).toMatchObject({ scoring_rubric: { max_score: 10, weight: 3 }, crm_field_mapping: { salesforce: 'Opportunity.Budget__c' } });
    expect(schema.fields[9].scoring_rubric.weight).toBe(1);
    expect(schema.fields[1]).toMatchObject({ enum_options: [], scoring_rubric: {}, crm_field_mapping: {}, is_required: false });
    expect((await h.get(`/meetings/schemas/${schema.id}`, t.key)).body).toEqual(schema);
  });

  it('refuses what the server rules forbid, naming the field', async () => {
    const post = (fields: unknown[]) => h.post('/meetings/schemas', t.key, { name: 'Bad', workspace_id: t.workspaceId, fields });
    const text = { name: 'notes', label: 'Notes', field_type: 'text' };
    const cases: [unknown[], string][] = [
      [[text, { ...text, label: 'Again' }], 'fields.1.name'],
      [[{ name: 'stage', label: 'Stage', field_type: 'enum' }], 'fields.0.enum_options'],
      [[{ ...text, enum_options: ['a'] }], 'fields.0.enum_options'],
      [[{ name: 'stage', label: 'Stage', field_type: 'multi_enum', enum_options: ['Open', 'open'] }], 'fields.0.enum_options.1'],
      [[{ ...text, scoring_enabled: true }], 'fields.0.scoring_rubric.max_score'],
      [[{ ...text, scoring_enabled: true, scoring_rubric: { max_score: 5 } }], 'fields.0.scoring_rubric.criteria'],
      [
        [{ ...text, scoring_enabled: true, scoring_rubric: { max_score: 5, criteria: [{ score: 8, description: 'x' }] } }],
        'fields.0.scoring_rubric.criteria.0.score',
      ],
      [[{ ...text, scoring_rubric: { max_score: 5, criteria: [{ score: 1, description: 'x' }] } }], 'fields.0.scoring_rubric'],
    ];
    for (const [fields, param] of cases) {
      const response = await post(fields);
      expect(response.status, param).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect(errorOf(await h.post('/meetings/schemas', t.key, { name: 'x', workspace_id: 'ws_nope', fields: [text] }))).toMatchObject({
      code: 'resource_not_found',
      param: 'workspace_id',
    });
  });

  it('versions field changes only, keeping the ids of fields that keep their name', async () => {
    const schema = await createSchema(t);
    const renamed = (await h.patch(`/meetings/schemas/${schema.id}`, t.key, { name: 'Renamed', tags: ['x'] })).body;
    expect(renamed).toMatchObject({ name: 'Renamed', tags: ['x'], version: 1 });
    const budget = schema.fields[0];
    const changed = await h.patch(`/meetings/schemas/${schema.id}`, t.key, {
      fields: [{ name: 'timeline', label: 'Timeline', field_type: 'date' }, everyType[0]],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.version).toBe(2);
    expect(changed.body.fields.map((field: { name: string; order: number }) => [field.name, field.order])).toEqual([
      ['timeline', 0],
      ['budget', 1],
    ]);
    expect(changed.body.fields[1].id).toBe(budget.id);
    expect(changed.body.fields[0].id).not.toBe(schema.fields[0].id);
    const bad = await h.patch(`/meetings/schemas/${schema.id}`, t.key, { fields: [{ name: 'x', label: 'X', field_type: 'enum' }] });
    expect(errorOf(bad).param).toBe('fields.0.enum_options');
    expect((await h.get(`/meetings/schemas/${schema.id}`, t.key)).body.version).toBe(2);
  });

  it('publishes to the marketplace: others see it read-only, without its owners', async () => {
    const editor = await member(t, 'editor');
    const refused = await h.post('/meetings/schemas', editor.key, { name: 'Editor pick', workspace_id: t.workspaceId, fields: everyType, is_published: true });
    expect(errorOf(refused)).toMatchObject({ code: 'permission_denied', param: 'is_published' });
    const schema = await createSchema(t, { name: 'Shared scorecard' });
    const other = await h.tenant();
    expect((await h.get(`/meetings/schemas/${schema.id}`, other.key)).status).toBe(404);
    expect(errorOf(await h.patch(`/meetings/schemas/${schema.id}`, editor.key, { is_published: true })).code).toBe('permission_denied');
    const published = (await h.patch(`/meetings/schemas/${schema.id}`, t.key, { is_published: true })).body;
    expect(published).toMatchObject({ is_published: true, version: 1, downloads: 0 });
    expect(typeof published.author_name).toBe('string');

    const seen = (await h.get(`/meetings/schemas/${schema.id}`, other.key)).body;
    expect(seen).toMatchObject({ is_marketplace: true, workspace_id: null, user_id: null, author_name: published.author_name, is_published: true });
    const otherList = (await h.get(`/meetings/schemas?workspace_id=${other.workspaceId}&limit=100`, other.key)).body;
    expect(otherList.data.map((entry: { id: string }) => entry.id)).toContain(schema.id);
    expect(errorOf(await h.patch(`/meetings/schemas/${schema.id}`, other.key, { name: 'Stolen' })).code).toBe('permission_denied');
    expect(errorOf(await h.delete(`/meetings/schemas/${schema.id}`, other.key)).code).toBe('permission_denied');

    // The other account runs it on a call: a download.
    const meeting = await importCall(other, 'bant-discovery.vtt', 'text/vtt', [schema.id]);
    await queue.drain();
    expect((await h.get(`/meetings/${meeting.id}/schema-results`, other.key)).body.total).toBe(1);
    expect((await h.get(`/meetings/schemas/${schema.id}`, t.key)).body).toMatchObject({ downloads: 1, usage_count: 0 });
    expect((await h.get(`/meetings/schemas/${schema.id}`, other.key)).body).toMatchObject({ downloads: 1, usage_count: 1 });

    // Unpublished again: gone from the other account (its result stays).
    await h.patch(`/meetings/schemas/${schema.id}`, t.key, { is_published: false });
    expect((await h.get(`/meetings/schemas/${schema.id}`, other.key)).status).toBe(404);
    expect((await h.get(`/meetings/${meeting.id}/schema-results`, other.key)).body.data[0].schema_id).toBe(schema.id);
  });

  it('keeps downloads and usage_count as counters of the results, through runs again, a meeting deleted and a workspace deleted', async () => {
    const schema = await createSchema(t, { name: 'Counted scorecard', is_published: true });
    const other = await h.tenant();
    const second = await createWorkspaceFor(database.db, { accountId: other.accountId, name: 'Second' });
    const inSecond = { ...other, workspaceId: second };
    const counts = async (tenant: Tenant) => {
      const { downloads, usage_count } = (await h.get(`/meetings/schemas/${schema.id}`, tenant.key)).body;
      return { downloads, usage_count };
    };
    const mismatches = async () => (await reconcileCounts(database.db)).filter((mismatch) => mismatch.id.startsWith(schema.id));

    const first = await importCall(other, 'bant-discovery.vtt', 'text/vtt', [schema.id]);
    const again = await importCall(other, 'bant-discovery.vtt', 'text/vtt', [schema.id]);
    const elsewhere = await importCall(inSecond, 'bant-discovery.vtt', 'text/vtt', [schema.id]);
    await queue.drain();
    // Two workspaces ran it; the other account's three meetings have a result, the owner's none.
    expect(await counts(other)).toEqual({ downloads: 2, usage_count: 3 });
    expect(await counts(t)).toEqual({ downloads: 2, usage_count: 0 });
    // The owner's list shows the same counts, read beside the page.
    const listed = (await h.get('/meetings/schemas?include_built_in=false&limit=100', other.key)).body.data.find(
      (entry: { id: string }) => entry.id === schema.id,
    );
    expect({ downloads: listed.downloads, usage_count: listed.usage_count }).toEqual({ downloads: 2, usage_count: 3 });

    // Run again: the result is replaced, not counted twice.
    expect((await h.post(`/meetings/${first.id}/schema-results`, other.key, { schema_id: schema.id })).status).toBe(200);
    expect(await counts(other)).toEqual({ downloads: 2, usage_count: 3 });
    // One meeting of a workspace that keeps another: one result less, the same workspaces.
    expect((await h.delete(`/meetings/${again.id}`, other.key)).status).toBe(200);
    expect(await counts(other)).toEqual({ downloads: 2, usage_count: 2 });
    // The second workspace's last result goes with the workspace: one download less.
    expect((await h.delete(`/workspaces/${second}`, other.key)).status).toBe(200);
    expect((await h.get(`/meetings/${elsewhere.id}`, other.key)).status).toBe(404);
    expect(await counts(other)).toEqual({ downloads: 1, usage_count: 1 });
    expect(await mismatches()).toEqual([]);

    // A counter off by a write that bypassed the trigger is what the recount reports.
    await database.db.execute(sql`update meeting_schemas set downloads = 5 where id = ${schema.id}`);
    expect(await mismatches()).toEqual([{ counter: 'meeting_schemas.downloads', id: schema.id, counted: 1, stored: 5 }]);
    await database.db.execute(sql`update meeting_schemas set downloads = 1 where id = ${schema.id}`);
  });

  it('narrows custom schemas by workspace, and applies roles', async () => {
    const second = (await h.post('/workspaces', t.key, { name: 'EMEA sales', type: 'team' })).body;
    const there = (await h.post('/meetings/schemas', t.key, { name: 'EMEA only', workspace_id: second.id, fields: [everyType[2]] })).body;
    const here = await createSchema(t, { name: 'Home only' });
    const narrowed = (await h.get(`/meetings/schemas?workspace_id=${t.workspaceId}&include_built_in=false&limit=100`, t.key)).body.data.map(
      (schema: { id: string }) => schema.id,
    );
    expect(narrowed).toContain(here.id);
    expect(narrowed).not.toContain(there.id);

    const viewer = await member(t, 'viewer');
    expect(errorOf(await h.post('/meetings/schemas', viewer.key, { name: 'V', workspace_id: t.workspaceId, fields: [everyType[2]] })).code).toBe(
      'permission_denied',
    );
    expect((await h.get(`/meetings/schemas/${here.id}`, viewer.key)).status).toBe(200);
    expect(errorOf(await h.delete(`/meetings/schemas/${here.id}`, viewer.key)).code).toBe('permission_denied');
    // An editor changes their own schema, not a colleague's; the owner changes any.
    const editor = await member(t, 'editor');
    const theirs = (await h.post('/meetings/schemas', editor.key, { name: 'Editor schema', workspace_id: t.workspaceId, fields: [everyType[2]] })).body;
    expect(errorOf(await h.patch(`/meetings/schemas/${here.id}`, editor.key, { name: 'Nope' })).code).toBe('permission_denied');
    expect((await h.patch(`/meetings/schemas/${theirs.id}`, editor.key, { name: 'Editor schema v2' })).status).toBe(200);
    expect((await h.patch(`/meetings/schemas/${theirs.id}`, t.key, { name: 'Owner fixed it' })).status).toBe(200);
    expect((await h.delete(`/meetings/schemas/${theirs.id}`, t.key)).body).toEqual({ id: theirs.id, object: 'meeting.schema', deleted: true });
    expect((await h.get(`/meetings/schemas/${theirs.id}`, t.key)).status).toBe(404);
  });
});

type FieldValue = { field_name: string; value: any; quote?: string; confidence: number; score?: number };
type Evidence = { field_name: string; text: string; speaker: string; speaker_id: string; timestamp_start: number; timestamp_end: number };

/** Every quote is in the transcript, every evidence span is a real segment with its speaker and times. */
function expectVerified(result: { field_values: FieldValue[]; evidence: Evidence[] }, transcript: any) {
  const folded = transcript.segments.map((segment: { text: string }) => segment.text.toLowerCase().replace(/\s+/g, ' ')).join(' ');
  for (const value of result.field_values) {
    if (value.quote) expect(folded).toContain(value.quote.toLowerCase().replace(/\s+/g, ' '));
  }
  for (const span of result.evidence) {
    const segment = transcript.segments.find(
      (candidate: { start: number; text: string }) => candidate.start === span.timestamp_start && candidate.text === span.text,
    );
    expect(segment, span.text).toBeDefined();
    expect(segment).toMatchObject({ speaker: span.speaker, speaker_id: span.speaker_id, end: span.timestamp_end });
  }
}

describe('schema results', () => {
  it('runs the schemas after an imported call: typed values, verified quotes, real evidence, weighted score, schema_ids order', async () => {
    const custom = await createSchema(t);
    expect(
      errorOf(
        await h.post('/meetings', t.key, {
          workspace_id: t.workspaceId,
          meeting_url: 'https://meet.google.com/abc-defg-hij',
          schema_ids: ['msch_bantBuiltin', 'msch_nope'],
        }),
      ),
    ).toMatchObject({
      code: 'resource_not_found',
      param: 'schema_ids.1',
    });
    const meeting = await importCall(t, 'bant-discovery.vtt', 'text/vtt', [custom.id, 'msch_bantBuiltin', 'msch_objectionsBuiltin']);
    expect(meeting.schema_ids).toEqual([custom.id, 'msch_bantBuiltin', 'msch_objectionsBuiltin']);
    expect((await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body).toEqual({ object: 'list', meeting_id: meeting.id, data: [], total: 0 });
    await queue.drain();

    const transcript = (await h.get(`/meetings/${meeting.id}/transcript`, t.key)).body;
    const results = (await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body;
    expect(results.total).toBe(3);
    expect(results.data.map((result: { schema_id: string }) => result.schema_id)).toEqual([custom.id, 'msch_bantBuiltin', 'msch_objectionsBuiltin']);
    for (const result of results.data) expectVerified(result, transcript);

    const mine = results.data[0];
    expect(mine).toMatchObject({ object: 'meeting.schema_result', schema_name: 'Enterprise deal review', schema_version: 1, schema_category: 'custom' });
    const value = (name: string) => mine.field_values.find((entry: FieldValue) => entry.field_name === name);
    expect(mine.field_values.map((entry: FieldValue) => entry.field_name)).toEqual(everyType.map((field) => field.name));
    expect(value('budget')).toMatchObject({ value: { amount: 80000, currency: 'USD' }, score: 10 });
    expect(value('budget').quote).toContain('$80,000 approved');
    expect(value('seats').value).toBe(45);
    // Said on 2026-11-15: "Ideally by January 15th".
    expect(value('go_live').value).toBe('2027-01-15');
    expect(value('security_review').value).toBe(true);
    expect(value('competitors').value).toEqual(['Gong', 'Chorus']);
    expect(value('feature_requests').value).toEqual(
      expect.arrayContaining([
        'One feature request: we would love an export of call summaries straight into Salesforce, because the current reports are too slow.',
      ]),
    );
    expect(value('champion').value).toMatchObject({ name: 'Dana Whitfield', title: 'VP of Sales' });
    expect(typeof value('summary').value).toBe('string');
    // Nothing in the call says the stage: null, not invented.
    expect(value('stage')).toMatchObject({ value: null });
    expect(value('stage').quote).toBeUndefined();
    const budgetSpan = mine.evidence.find((span: Evidence) => span.field_name === 'budget');
    expect(budgetSpan).toMatchObject({ speaker: 'Marcus Chen', speaker_id: 'spk_2', timestamp_start: 37, timestamp_end: 48.3 });
    expect(mine.scores).toEqual({ budget: value('budget').score, champion: value('champion').score });
    expect(mine.overall_score).toBeCloseTo((3 * (mine.scores.budget / 10) * 100 + (mine.scores.champion / 5) * 100) / 4, 1);

    const bant = results.data[1];
    expect(bant.field_values.find((entry: FieldValue) => entry.field_name === 'authority').value).toMatchObject({ name: 'Marcus Chen', speaker_id: 'spk_2' });
    const objections = results.data[2];
    expect(objections.field_values.find((entry: FieldValue) => entry.field_name === 'objection_types').value).toEqual(
      expect.arrayContaining(['price', 'security']),
    );

    const light = (await h.get(`/meetings/${meeting.id}/schema-results?include_evidence=false`, t.key)).body;
    expect(light.data.every((result: { evidence: unknown[] }) => result.evidence.length === 0)).toBe(true);
    expect(light.data[0].field_values).toEqual(mine.field_values);
    const one = (await h.get(`/meetings/${meeting.id}/schema-results?schema_id=msch_bantBuiltin`, t.key)).body;
    expect(one.data.map((result: { schema_id: string }) => result.schema_id)).toEqual(['msch_bantBuiltin']);
    expect((await h.get(`/meetings/schemas/${custom.id}`, t.key)).body.usage_count).toBe(1);

    // Deleting the schema keeps its result.
    await h.delete(`/meetings/schemas/${custom.id}`, t.key);
    const kept = (await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body;
    expect(kept.data[0]).toMatchObject({ schema_id: custom.id, schema_name: 'Enterprise deal review' });
    // Deleting the meeting deletes them.
    await h.delete(`/meetings/${meeting.id}`, t.key);
    expect((await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).status).toBe(404);
  });

  it('runs a schema on a meeting that is already done, again at a new version, and refuses the rest', async () => {
    const meeting = await importCall(t, 'cs-renewal.vtt', 'text/vtt');
    const pending = await h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: 'msch_csHealthBuiltin' });
    expect(errorOf(pending).code).toBe('invalid_state');
    await queue.drain();
    expect((await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body.total).toBe(0);

    const run = await h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: 'msch_csHealthBuiltin' });
    expect(run.status).toBe(200);
    const transcript = (await h.get(`/meetings/${meeting.id}/transcript`, t.key)).body;
    expectVerified(run.body, transcript);
    const health = run.body.field_values.find((entry: FieldValue) => entry.field_name === 'health');
    expect(health.value).toBe('at_risk');
    expect(run.body.overall_score).toBeGreaterThanOrEqual(0);
    expect((await h.get(`/meetings/${meeting.id}`, t.key)).body.schema_ids).toEqual(['msch_csHealthBuiltin']);

    const custom = (
      await h.post('/meetings/schemas', t.key, {
        name: 'Renewal',
        workspace_id: t.workspaceId,
        fields: [{ name: 'renewal_month', label: 'Renewal', field_type: 'text' }],
      })
    ).body;
    const first = (await h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: custom.id })).body;
    expect(first.schema_version).toBe(1);
    await h.patch(`/meetings/schemas/${custom.id}`, t.key, { fields: [{ name: 'renewal_date', label: 'Renewal date', field_type: 'date' }] });
    const again = (await h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: custom.id })).body;
    expect(again).toMatchObject({ id: first.id, schema_version: 2 });
    const list = (await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body;
    expect(list.data.map((result: { schema_id: string; schema_version: number }) => [result.schema_id, result.schema_version])).toEqual([
      ['msch_csHealthBuiltin', 1],
      [custom.id, 2],
    ]);

    expect(errorOf(await h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: 'msch_nope' }))).toMatchObject({
      code: 'resource_not_found',
      param: 'schema_id',
    });
    const viewer = await member(t, 'viewer');
    expect(errorOf(await h.post(`/meetings/${meeting.id}/schema-results`, viewer.key, { schema_id: 'msch_bantBuiltin' })).code).toBe('permission_denied');
    expect((await h.get(`/meetings/${meeting.id}/schema-results`, viewer.key)).body.total).toBe(2);
    // Another account's unpublished schema is unknown.
    const other = await h.tenant();
    const theirs = (await h.post('/meetings/schemas', other.key, { name: 'Theirs', workspace_id: other.workspaceId, fields: [everyType[2]] })).body;
    expect(errorOf(await h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: theirs.id })).param).toBe('schema_id');
  });

  it('shows on the meeting, per requested schema, whether its result is pending, completed, failed or skipped (issue 24)', async () => {
    const runsOf = async (id: string) =>
      (await h.get(`/meetings/${id}`, t.key)).body.schema_runs as { schema_id: string; status: string; error: string | null }[];
    // Offline: pending until the extraction job has run, then completed, with the result listed.
    const done = await importCall(t, 'bant-discovery.vtt', 'text/vtt', ['msch_bantBuiltin']);
    expect(done.schema_runs).toEqual([{ schema_id: 'msch_bantBuiltin', status: 'pending', error: null, updated_at: null }]);
    await queue.drain();
    const [completed] = await runsOf(done.id);
    expect(completed).toMatchObject({ schema_id: 'msch_bantBuiltin', status: 'completed', error: null });
    expect((await h.get(`/meetings/${done.id}/schema-results`, t.key)).body.total).toBe(1);

    // A model that fails one schema's extraction: that one is failed with the reason (after the retries),
    // the next still completes, and a schema deleted before the call ended is skipped.
    const failing = await createSchema(t, { name: 'Deal review that fails' });
    const deleted = await createSchema(t, { name: 'Deleted before the call ended' });
    const { fake, engine: upstream } = await fakeUpstreamEngine();
    const nullField = (field_name: string) => ({ field_name, value: null, quote: null, confidence: 0, score: null, score_rationale: null });
    fake.setDefault((request) => {
      const body = JSON.stringify(request.body);
      if (body.includes('current_process')) return { status: 500 }; // the schema made by createSchema (everyType)
      if (body.includes('buying_stage'))
        return { content: JSON.stringify({ fields: ['budget', 'authority', 'need', 'timeline', 'buying_stage'].map(nullField) }) };
      return { status: 500 }; // the meeting analysis fails too: the meeting is still done
    });
    try {
      const meeting = await importCall(t, 'bant-discovery.vtt', 'text/vtt', [failing.id, 'msch_bantBuiltin', deleted.id]);
      expect((await h.delete(`/meetings/schemas/${deleted.id}`, t.key)).status).toBe(200);
      await engine.using(upstream, () => queue.drain({ ignoreStartAfter: true }));
      const runs = await runsOf(meeting.id);
      expect(runs.map((run) => [run.schema_id, run.status])).toEqual([
        [failing.id, 'failed'],
        ['msch_bantBuiltin', 'completed'],
        [deleted.id, 'skipped'],
      ]);
      expect(runs[0]!.error).toMatch(/\S/);
      expect(runs[2]!.error).toMatch(/deleted/);
      const results = (await h.get(`/meetings/${meeting.id}/schema-results`, t.key)).body;
      expect(results.data.map((result: { schema_id: string }) => result.schema_id)).toEqual(['msch_bantBuiltin']);
    } finally {
      await fake.close();
    }
  });

  it('keeps only the quotes a model gave that are in the transcript (upstream engine)', async () => {
    const { fake, engine: upstream } = await fakeUpstreamEngine();
    try {
      const meeting = await importCall(t, 'discovery.srt', 'application/x-subrip');
      await queue.drain();
      fake.enqueue({
        content: JSON.stringify({
          fields: [
            {
              field_name: 'budget',
              value: { amount: 50000, currency: 'USD' },
              quote: 'Our CFO approves anything over fifty thousand.',
              confidence: 0.8,
              score: 5,
              score_rationale: 'A threshold, not an approved amount.',
            },
            {
              field_name: 'authority',
              value: { name: 'Pat Lee', title: 'CFO', email: null, speaker_id: null },
              quote: 'Pat Lee, our CFO, makes every purchase decision.',
              confidence: 0.9,
              score: 9,
              score_rationale: 'Named decision maker.',
            },
            {
              field_name: 'need',
              value: 'Quotes are built by hand in spreadsheets.',
              quote: 'We build every quote by hand in spreadsheets',
              confidence: 0.85,
              score: 10,
              score_rationale: 'Three hours a week per rep.',
            },
            { field_name: 'timeline', value: null, quote: null, confidence: 0, score: null, score_rationale: null },
            { field_name: 'buying_stage', value: 'evaluation', quote: null, confidence: 0.5, score: null, score_rationale: null },
          ],
        }),
      });
      const run = await engine.using(upstream, () => h.post(`/meetings/${meeting.id}/schema-results`, t.key, { schema_id: 'msch_bantBuiltin' }));
      expect(run.status).toBe(200);
      expect(fake.requests.at(-1)!.body.response_format.json_schema.name).toBe('meeting_schema_result');
      const byName = Object.fromEntries(run.body.field_values.map((entry: FieldValue) => [entry.field_name, entry]));
      expect(byName.budget).toMatchObject({ value: { amount: 50000, currency: 'USD' }, quote: 'Our CFO approves anything over fifty thousand.', score: 5 });
      // Invented quote: dropped, and the value (which needs evidence) with it; scored at the lowest level.
      expect(byName.authority).toMatchObject({ value: null, score: 0 });
      expect(byName.authority.quote).toBeUndefined();
      expect(byName.need).toMatchObject({ value: 'Quotes are built by hand in spreadsheets.', score: 10 });
      expect(byName.timeline).toMatchObject({ value: null, score: 0 });
      expect(byName.buying_stage).toMatchObject({ value: 'evaluation' });
      const transcript = (await h.get(`/meetings/${meeting.id}/transcript`, t.key)).body;
      expectVerified(run.body, transcript);
      expect(run.body.evidence.map((span: Evidence) => span.field_name)).toEqual(['budget', 'need']);
      expect(run.body.overall_score).toBeCloseTo((50 + 0 + 100 + 0) / 4, 1);
    } finally {
      await fake.close();
    }
  });
});
