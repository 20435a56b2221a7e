import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createWorkspaceFor } from '../src/admin/accounts.js';
import { runAdmin } from '../src/admin/cli.js';
import { countsRebuild, reconcile, reconcileUsageCounters, usageCountersBackfills } from '../src/billing/reconcile.js';
import { POSTGRES_PLANNER_SETTINGS, type Database, type DatabaseHandle } from '../src/db/client.js';
import * as schema from '../src/db/schema/index.js';
import type { JobRuntime } from '../src/jobs/queue.js';
import { collectCreditHolds } from '../src/observability/billing.js';
import { scrapeMetrics } from '../src/observability/metrics.js';
import { openTestDatabase } from './support/database.js';
import { openTestJobQueue } from './support/jobs.js';
import { testServices } from './support/services.js';
import { brandVoiceJobs } from '../src/resources/brand-voices/job.js';
import { videoAnalysisJobs } from '../src/resources/video-analyses/jobs.js';
import { expireMeetingMedia, type MeetingJobDeps } from '../src/resources/meetings/jobs.js';
import { expireResponses } from '../src/resources/responses/retention.js';
import { Harness, type Tenant } from './support/harness.js';

// History that grows (DECISIONS.md): with 50k ledger rows and tens of thousands of stored responses,
// generations, threads and projects — most of another account — every statement the hot reads and a
// charged call send is planned without a sequential scan of a history table. Plans, not timings: the
// statements are the ones the server really sent (drizzle's query log), explained with their parameters.

const HISTORY_TABLES = [
  'credit_ledger',
  'credit_usage_daily',
  'transcription_usage_daily',
  'model_responses',
  'generations',
  'agent_threads',
  'agent_messages',
  'projects',
  'meetings',
  'files',
  'folders',
  'personas',
  'conversation_items',
  'meeting_schemas',
  'meeting_schema_results',
  'meeting_schema_usage',
  'brand_voices',
  'focus_groups',
  'video_analyses',
  'news_digests',
];
/**
 * Tables that grow with console use rather than with calls: every console page load makes a browser key
 * and revokes the one before, and each key that made requests has usage rows. Checked for scans like the
 * history tables, but not counted as history by the tests that want no history read at all (the API-key
 * lookup reads api_keys whenever its cache entry has expired).
 */
const CONSOLE_GROWN_TABLES = ['api_keys', 'api_usage_daily'];
const SCANNED_TABLES = [...HISTORY_TABLES, ...CONSOLE_GROWN_TABLES];
/** Browser keys of the caller's earlier console page loads, each with a usage row on a day long past. */
const OLD_BROWSER_KEYS = 20_000;
const LEDGER_ROWS = 50_000;
const OTHER_ROWS = 20_000;
const PROJECTS = 5_000;
/** Folders, custom personas and meeting schemas of the other account (the caller's lists must not walk past them). */
const OTHER_FOLDERS = 5_000;
const OTHER_PERSONAS = 5_000;
const OTHER_SCHEMAS = 5_000;
const WORKSPACES = 1_000;
/** The caller's own history: ledger rows and rows of each other kind, over two workspaces. */
const OWN_ROWS = 3_000;
/** What one call may read of a history table: far less than the caller's own history, more than a few pages. */
const MAX_ROWS_READ = 1_000;

interface Logged {
  query: string;
  params: unknown[];
}

/**
 * auto_explain on the server's connections (this file's own client): with nested statements, every
 * statement run inside the hold and charge functions (migration 0013) is reported with its plan as run
 * (row counts; no timing), as a NOTICE this client collects while `plansRun` is set.
 */
const AUTO_EXPLAIN = {
  session_preload_libraries: 'auto_explain',
  'auto_explain.log_min_duration': '0',
  'auto_explain.log_nested_statements': 'on',
  'auto_explain.log_analyze': 'on',
  'auto_explain.log_timing': 'off',
  'auto_explain.log_format': 'json',
  'auto_explain.log_level': 'notice',
};

// Only the postgres project includes this file (vitest.config.ts).
describe('query plans on a grown history (PostgreSQL)', () => {
  let database: DatabaseHandle;
  let client: postgres.Sql;
  let databaseUrl: string;
  let h: Harness;
  /** A queue without workers: the jobs a create enqueues (a video analysis, a brand voice) are kept, never run. */
  let jobs: JobRuntime;
  let t: Tenant;
  let projectId: string;
  let second: string;
  let folderId: string;
  /** The caller's research thread, grown to OWN_ROWS messages. */
  let threadId: string;
  const logged: Logged[] = [];
  /** Every statement the driver sent (postgres.js's debug hook), BEGIN and COMMIT included: one round trip each. */
  const sent: string[] = [];
  /** While set, the plans auto_explain reports (JSON) are kept here. */
  let plansRun: Record<string, unknown>[] | null = null;

  /** Copies the row `id` of `table` `count` times (new ids, older timestamps), the other columns as `overrides` say. */
  async function clone(table: string, id: string, count: number, overrides: Record<string, string> = {}): Promise<void> {
    const columns = await client<{ column_name: string; column_default: string | null }[]>`
      select column_name, column_default from information_schema.columns where table_schema = 'public' and table_name = ${table} order by ordinal_position`;
    const names = columns.filter((column) => !column.column_default?.startsWith('nextval')).map((column) => column.column_name);
    const value = (name: string) =>
      overrides[name] ??
      (name === 'id' ? `src.id || '_' || g` : name === 'created_at' || name === 'updated_at' ? `src.${name} - g * interval '1 minute'` : `src."${name}"`);
    await client.unsafe(
      `insert into "${table}" (${names.map((name) => `"${name}"`).join(', ')})
       select ${names.map(value).join(', ')} from "${table}" src, generate_series(1, ${count}) g where src.id = $1`,
      [id],
    );
  }

  beforeAll(async () => {
    const opened = await openTestDatabase();
    if (opened.connection.driver !== 'postgres') throw new Error('a PostgreSQL test database was expected');
    databaseUrl = opened.connection.url;
    client = postgres(opened.connection.url, {
      max: 4,
      onnotice: (notice) => {
        const plan = /plan:\s*(\{[\s\S]*\})\s*$/.exec(notice.message ?? '')?.[1];
        if (plansRun && plan) plansRun.push(JSON.parse(plan) as Record<string, unknown>);
      },
      debug: (_connection, query) => sent.push(query),
      connection: { ...POSTGRES_PLANNER_SETTINGS, ...AUTO_EXPLAIN },
    });
    const db = drizzle({ client, schema, logger: { logQuery: (query, params) => logged.push({ query, params }) } }) as unknown as Database;
    database = { ...opened, db };
    const never = testServices(database.db);
    jobs = await openTestJobQueue(database, [...videoAnalysisJobs(never), ...brandVoiceJobs(never)]);
    h = await Harness.create({ database, services: { jobs } });

    // The caller: two workspaces, a project; another account holds most of the history.
    t = await h.tenant({ credits: 1_000_000 });
    second = await createWorkspaceFor(h.db, { accountId: t.accountId, name: 'Second' });
    const other = await h.tenant({ credits: 1_000_000 });
    projectId = (await h.post('/projects', t.key, { workspace_id: t.workspaceId, name: 'Grown' })).body.id;
    const otherProject = (await h.post('/projects', other.key, { workspace_id: other.workspaceId, name: 'Theirs' })).body.id;
    for (const tenant of [t, other]) {
      const project = tenant === t ? projectId : otherProject;
      expect((await h.post('/responses', tenant.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Price check?' })).status).toBe(200);
      expect(
        (
          await h.post('/generations', tenant.key, {
            app_id: 'app_linkedin_post',
            input_data: { topic: 'Cold brew', post_length: 'short' },
            project_id: project,
          })
        ).status,
      ).toBe(200);
      const thread = await h.post('/agent/threads', tenant.key, { workspace_id: tenant.workspaceId, title: 'Research', project_id: project });
      expect(thread.status).toBe(200);
      if (tenant === t) threadId = thread.body.id;
      // A long conversation to copy: one question, asked again and again (the answers are the jobs', which do not run here).
      const now = h.clock.now();
      await h.db.insert(schema.agentMessages).values({
        id: `amsg_seed_${tenant.accountId}`,
        threadId: thread.body.id,
        role: 'user',
        content: 'What changed in pricing?',
        status: 'completed',
        createdAt: now,
        updatedAt: now,
      });
    }
    // A file and a meeting of each account to copy (their own creation needs uploads and a meeting bot).
    for (const tenant of [t, other]) {
      const now = h.clock.now();
      await h.db.insert(schema.files).values({
        id: `file_seed_${tenant.accountId}`,
        workspaceId: tenant.workspaceId,
        name: 'memo.txt',
        type: 'text/plain',
        sizeBytes: 10,
        size: 10,
        storageKey: `upl_${tenant.accountId.slice(-8)}seed.txt`,
        createdAt: now,
        updatedAt: now,
      });
      await h.db.insert(schema.meetings).values({
        id: `mtg_seed_${tenant.accountId}`,
        workspaceId: tenant.workspaceId,
        title: 'Weekly',
        source: 'import',
        botName: 'Notes',
        joinType: 'immediate',
        joinAt: now,
        status: 'done',
        statusChanges: [{ code: 'done', sub_code: null, message: null, created_at: now.toISOString() }],
        analysisStatus: 'completed',
        schemaIds: [],
        createdAt: now,
        updatedAt: now,
      });
    }
    // A shared folder of the caller's and one of the other account's to copy.
    folderId = (await h.post('/folders', t.key, { workspace_id: t.workspaceId, name: 'Briefs', is_shared: true })).body.id;
    const otherFolder = (await h.post('/folders', other.key, { workspace_id: other.workspaceId, name: 'Theirs', is_shared: true })).body.id;
    const one = async (sql: string, id: string) => (await client.unsafe<{ id: string }[]>(sql, [id]))[0]!.id;
    // The other account's history is spread over its many workspaces and projects, as a real one would be.
    await clone('workspaces', other.workspaceId, WORKSPACES);
    await clone('projects', otherProject, PROJECTS);
    const inOtherWorkspaces = { workspace_id: `src.workspace_id || '_' || (1 + g % ${WORKSPACES})` };
    const inOtherProjects = { project_id: `case when g % 4 = 0 then null else src.project_id || '_' || (1 + g % ${PROJECTS}) end` };
    const charge = await one(`select id from credit_ledger where account_id = $1 and kind = 'charge' and project_id is not null limit 1`, other.accountId);
    const ourCharge = await one(`select id from credit_ledger where account_id = $1 and kind = 'charge' and project_id is not null limit 1`, t.accountId);
    await clone('credit_ledger', charge, LEDGER_ROWS - OWN_ROWS, inOtherProjects);
    await clone('credit_ledger', ourCharge, OWN_ROWS, { created_at: `src.created_at - g * interval '10 seconds'` });
    // One of each other workspace-owned kind per account, made as a customer makes it (their work, brand
    // voices learning and analyses running, is the jobs', which do not run here), then copied like the rest.
    for (const tenant of [t, other]) {
      const workspace_id = tenant.workspaceId;
      const made = [
        await h.post('/brand-voices', tenant.key, {
          label: 'Plain',
          usage_context: 'Social posts and newsletters',
          workspace_id,
          sources: { file_ids: [`file_seed_${tenant.accountId}`] },
        }),
        await h.post('/focus-groups', tenant.key, {
          question: 'Would you pay $18 per seat?',
          persona_ids: ['persona_saas_cfo', 'persona_agency_founder'],
          workspace_id,
        }),
        await h.post('/video-analyses', tenant.key, {
          video_url: 'https://cdn.example.com/launch.mp4',
          title: 'Launch spot',
          brand: 'Stride',
          product: 'Stride Pro',
          primary_intent: 'Trial',
          secondary_intent: 'Cushioning',
          tertiary_intent: 'Heritage',
          goal: 'Sign-ups',
          chunk_duration: 10,
          frames_per_chunk: 4,
          workspace_id,
        }),
        await h.post('/news/digests', tenant.key, { persona_id: 'persona_saas_cfo', period: 'last_7_days', workspace_id }),
      ];
      expect(made.map((response) => response.status)).toEqual(made.map(() => 200));
    }
    for (const [table, byAccount] of [
      ['model_responses', 'account_id'],
      ['generations', null],
      ['agent_threads', null],
      ['files', null],
      ['meetings', null],
      ['brand_voices', null],
      ['focus_groups', null],
      ['video_analyses', null],
      ['news_digests', null],
    ] as const) {
      const where = byAccount ? `${byAccount} = $1` : `workspace_id = (select id from workspaces where account_id = $1 limit 1)`;
      const hasProject = table === 'generations' || table === 'agent_threads';
      // Files need their own storage keys; meetings were transcribed, one completed a day going back, so
      // transcription_usage_daily holds a row per account and day of that history.
      const unique: Record<string, string> =
        table === 'files'
          ? { storage_key: `'upl_' || md5(src.id || g) || '.txt'` }
          : table === 'meetings'
            ? { transcribed: '1', recorded_seconds: '125', completed_at: `src.created_at - g * interval '1 day'` }
            : {};
      // Project rows stay in the project's workspace; the rest spread over the other workspaces.
      await clone(table, await one(`select id from ${table} where ${where} limit 1`, other.accountId), OTHER_ROWS, {
        ...(hasProject ? inOtherProjects : inOtherWorkspaces),
        ...unique,
      });
      // Some of the caller's own, spread over both workspaces; one file in ten in the caller's folder.
      await clone(table, await one(`select id from ${table} where ${where} limit 1`, t.accountId), OWN_ROWS, {
        workspace_id: `case when g % 2 = 0 then src.workspace_id else '${second}' end`,
        ...unique,
        ...(table === 'files' ? { folder_id: `case when g % 20 = 0 then '${folderId}' end` } : {}),
      });
    }
    // The threads' messages: the caller's one thread holds OWN_ROWS, the other account's OTHER_ROWS.
    await clone('agent_messages', `amsg_seed_${other.accountId}`, OTHER_ROWS);
    await clone('agent_messages', `amsg_seed_${t.accountId}`, OWN_ROWS);
    expect((await client<{ n: number }[]>`select count(*)::int as n from agent_messages where thread_id = ${threadId}`)[0]!.n).toBe(OWN_ROWS + 1);
    // The other account's folders (shared and private) and custom personas, newer than the caller's rows;
    // the caller's favorites (a personal list: what they bookmarked, not their history) and custom personas.
    await clone('folders', otherFolder, OTHER_FOLDERS, {
      ...inOtherWorkspaces,
      is_shared: 'g % 2 = 0',
      created_at: `src.created_at + g * interval '1 second'`,
    });
    await client.unsafe(
      `insert into file_favorites (user_id, file_id, created_at) select $1, id, created_at from files where workspace_id = $2 and id like '%0'`,
      [t.userId, t.workspaceId],
    );
    const basePersona = (await client<{ id: string }[]>`select id from personas where not is_custom limit 1`)[0]!.id;
    for (const [tenant, count, prefix] of [
      [other, OTHER_PERSONAS, 'theirs'],
      [t, 300, 'ours'],
    ] as const) {
      await clone('personas', basePersona, count, {
        id: `'persona_${prefix}_' || g`,
        is_custom: 'true',
        account_id: `'${tenant.accountId}'`,
        workspace_id: tenant === t ? `'${t.workspaceId}'` : `'${other.workspaceId}_' || (1 + g % ${WORKSPACES})`,
        created_at: tenant === t ? `now() - interval '1 day' - g * interval '1 second'` : `now() - g * interval '1 second'`,
      });
    }
    // Years of console page loads: browser keys, each revoked by the next and with requests on its day.
    await client.unsafe(
      `insert into api_keys (id, account_id, user_id, name, key_hash, key_prefix, created_at, revoked_at, console_session_id, expires_at)
       select 'key_browser_' || g, account_id, user_id, 'Console (browser)', md5('browser' || g), 'svc_live_old', now() - interval '400 days' + g * interval '1 minute',
         now() - interval '400 days' + (g + 1) * interval '1 minute', 'cs_old_' || (g / 5), now() - interval '399 days' + g * interval '1 minute'
       from api_keys, generate_series(1, ${OLD_BROWSER_KEYS}) g where id = $1`,
      [t.apiKeyId],
    );
    await client.unsafe(
      `insert into api_usage_daily (api_key_id, account_id, day, requests, last_request_at)
       select 'key_browser_' || g, $1, (now() - interval '400 days' + g * interval '1 minute')::date, 3, now() - interval '400 days' + g * interval '1 minute'
       from generate_series(1, ${OLD_BROWSER_KEYS}) g`,
      [t.accountId],
    );
    // Meeting schemas: the other account's unpublished ones (newer than the caller's), a few published; the
    // caller's own in both workspaces. Results of a built-in on every meeting, so that a count of them
    // (downloads, usage_count) would read the history.
    const schemaOf = async (tenant: Tenant, name: string, extra: Record<string, unknown> = {}) =>
      (
        await h.post('/meetings/schemas', tenant.key, {
          name,
          workspace_id: tenant.workspaceId,
          fields: [{ name: 'budget', label: 'Budget', field_type: 'text' }],
          ...extra,
        })
      ).body.id as string;
    await clone('meeting_schemas', await schemaOf(other, 'Theirs'), OTHER_SCHEMAS, {
      ...inOtherWorkspaces,
      is_published: 'case when g % 1000 = 0 then 1 else 0 end',
      list_at: `src.list_at + g * interval '1 second'`,
    });
    await clone('meeting_schemas', await schemaOf(t, 'Ours', { is_published: true }), 200, {
      workspace_id: `case when g % 2 = 0 then src.workspace_id else '${second}' end`,
      is_published: '0',
      list_at: `src.list_at - g * interval '1 second'`,
    });
    for (const [tenant, rows] of [
      [other, OTHER_ROWS],
      [t, OWN_ROWS],
    ] as const) {
      const now = h.clock.now();
      const seed = `mtg_seed_${tenant.accountId}`;
      await h.db.insert(schema.meetingSchemaResults).values({
        id: `msr_seed_${tenant.accountId}`,
        meetingId: seed,
        workspaceId: tenant.workspaceId,
        schemaId: 'msch_bantBuiltin',
        schemaName: 'BANT',
        schemaVersion: 1,
        schemaCategory: 'qualification',
        fieldValues: [],
        scores: {},
        evidence: [],
        engine: 'offline',
        processingTimeMs: 1,
        createdAt: now,
        updatedAt: now,
      });
      // One per copied meeting, in that meeting's workspace (as the meetings were copied above).
      await clone('meeting_schema_results', `msr_seed_${tenant.accountId}`, rows, {
        meeting_id: `src.meeting_id || '_' || g`,
        workspace_id: tenant === t ? `case when g % 2 = 0 then src.workspace_id else '${second}' end` : inOtherWorkspaces.workspace_id,
      });
    }
    // The counters of that history, as the migrations' backfills build them from the ledger and the rows.
    const backfills = usageCountersBackfills();
    await client.unsafe('delete from credit_usage_daily');
    for (const backfill of backfills) await client.unsafe(backfill);
    for (const statement of countsRebuild()) await client.unsafe(statement);
    await client.unsafe('analyze');
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await jobs?.stop({ timeoutMs: 1000 });
    await client?.end();
    await database?.close();
  });

  type PlanNode = Record<string, unknown>;
  /** Every node of an EXPLAIN (format json) plan that reads one of `tables`, with the table's name. */
  function* tableReadsIn(plan: PlanNode, tables: string[]): Generator<{ relation: string; node: PlanNode }> {
    const relation = plan['Relation Name'] as string | undefined;
    if (relation && tables.includes(relation)) yield { relation, node: plan };
    for (const child of (plan.Plans as PlanNode[] | undefined) ?? []) yield* tableReadsIn(child, tables);
  }

  /** Adds to `found` the history tables `plan` reads sequentially, or (with `countRows`) in a range wider than MAX_ROWS_READ. */
  function historyScansIn(plan: PlanNode, query: string, countRows: boolean, found: string[]): void {
    for (const { relation, node } of tableReadsIn(plan, SCANNED_TABLES)) {
      if (node['Node Type'] === 'Seq Scan') found.push(`${relation}: ${query.slice(0, 160)}`);
      // Nor more rows than the caller's own share of the history.
      const read = ((node['Actual Rows'] as number) + ((node['Rows Removed by Filter'] as number | undefined) ?? 0)) * (node['Actual Loops'] as number);
      if (countRows && read > MAX_ROWS_READ) found.push(`${relation} (${read} rows read): ${query.slice(0, 160)}`);
    }
  }

  /**
   * The history tables each statement sent by `run` reads sequentially or in a wide range (EXPLAIN with its
   * parameters), and with `nested` also each statement run inside a function it called, as auto_explain saw
   * it run (the hold and the charge are one function call each).
   */
  async function seqScansOf(run: () => Promise<unknown>, { nested = false } = {}): Promise<string[]> {
    logged.length = 0;
    const ran: Record<string, unknown>[] = [];
    plansRun = nested ? ran : null;
    try {
      await run();
    } finally {
      plansRun = null;
    }
    const statements = logged.filter((entry) => SCANNED_TABLES.some((table) => entry.query.includes(`"${table}"`)));
    expect(statements.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const statement of statements) {
      // Reads are run (ANALYZE) to count the rows each scan really touched; writes are only planned.
      // A WITH that writes (the settlement) is a write: ANALYZE would run it a second time.
      const isRead = /^\s*(select|with)\b/i.test(statement.query) && !/\b(insert\s+into|delete\s+from|update\s+"\w+"\s+set)\b/i.test(statement.query);
      const [row] = await client.unsafe<{ 'QUERY PLAN': unknown }[]>(
        `explain (${isRead ? 'analyze, ' : ''}format json) ${statement.query}`,
        statement.params as never[],
      );
      historyScansIn((row!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan, statement.query, isRead, found);
    }
    if (nested) {
      // Every statement the server ran, at any depth, as it ran: rows are counted for writes too. The
      // usage counters are read only inside the functions, so seeing them proves the nested plans arrived.
      expect(ran.some((plan) => JSON.stringify(plan.Plan).includes('"Relation Name":"credit_usage_daily"'))).toBe(true);
      for (const plan of ran) historyScansIn(plan.Plan as Record<string, unknown>, String(plan['Query Text']), true, found);
    }
    return found;
  }

  const reads: [string, () => string][] = [
    ['GET /usage', () => '/usage'],
    ['GET /projects', () => '/projects'],
    ['GET /projects?workspace_id', () => `/projects?workspace_id=${t.workspaceId}`],
    ['GET /projects/{id}', () => `/projects/${projectId}`],
    ['GET /generations', () => '/generations'],
    ['GET /generations?project_id', () => `/generations?project_id=${projectId}`],
    ['GET /generations?app_id', () => '/generations?app_id=app_linkedin_post'],
    ['GET /generations?project_id&app_id', () => `/generations?project_id=${projectId}&app_id=app_linkedin_post`],
    ['GET /generations?workspace_id&app_id', () => `/generations?workspace_id=${second}&app_id=app_linkedin_post`],
    ['GET /generations?search', () => '/generations?search=cold'],
    ['GET /agent/threads', () => '/agent/threads'],
    ['GET /agent/threads?project_id', () => `/agent/threads?project_id=${projectId}`],
    ['GET /agent/threads?workspace_id&project_id', () => `/agent/threads?workspace_id=${t.workspaceId}&project_id=${projectId}`],
    ['GET /agent/threads?search', () => '/agent/threads?search=research'],
    ['GET /agent/threads/{id}/messages', () => `/agent/threads/${threadId}/messages`],
    ['GET /agent/threads/{id}/messages?order=desc', () => `/agent/threads/${threadId}/messages?order=desc`],
    ['GET /meetings/{id}/schema-results', () => `/meetings/mtg_seed_${t.accountId}/schema-results`],
    ['GET /meetings', () => '/meetings'],
    ['GET /meetings?workspace_id', () => `/meetings?workspace_id=${second}`],
    ['GET /meetings?status', () => '/meetings?status=done'],
    ['GET /meetings?workspace_id&status', () => `/meetings?workspace_id=${t.workspaceId}&status=done`],
    ['GET /files', () => '/files'],
    ['GET /files?workspace_id', () => `/files?workspace_id=${second}`],
    ['GET /files?folder_id', () => `/files?folder_id=${folderId}`],
    ['GET /files?workspace_id&folder_id', () => `/files?workspace_id=${t.workspaceId}&folder_id=${folderId}`],
    ['GET /files?folder_id=none', () => '/files?folder_id=none'],
    ['GET /files?is_favorite=true', () => '/files?is_favorite=true'],
    ['GET /files?workspace_id&is_favorite=true', () => `/files?workspace_id=${t.workspaceId}&is_favorite=true`],
    ['GET /files?is_favorite=false', () => '/files?is_favorite=false'],
    ['GET /files?type', () => '/files?type=text'],
    ['GET /files?search', () => '/files?search=memo'],
    ['GET /folders/{id}?include_files', () => `/folders/${folderId}?include_files=true`],
    ['GET /folders?workspace_id', () => `/folders?workspace_id=${t.workspaceId}`],
    ['GET /personas', () => '/personas'],
    ['GET /personas?workspace_id', () => `/personas?workspace_id=${t.workspaceId}`],
    ['GET /personas?is_custom=true', () => '/personas?is_custom=true'],
    ['GET /personas?is_custom=false', () => '/personas?is_custom=false'],
    ['GET /personas?type', () => '/personas?type=B2B'],
    ['GET /brand-voices', () => '/brand-voices'],
    ['GET /brand-voices?workspace_id', () => `/brand-voices?workspace_id=${second}`],
    ['GET /focus-groups', () => '/focus-groups'],
    ['GET /focus-groups?workspace_id', () => `/focus-groups?workspace_id=${second}`],
    ['GET /video-analyses', () => '/video-analyses'],
    ['GET /video-analyses?workspace_id', () => `/video-analyses?workspace_id=${second}`],
    ['GET /video-analyses?status', () => '/video-analyses?status=pending'],
    ['GET /news/digests', () => '/news/digests'],
    ['GET /news/digests?workspace_id', () => `/news/digests?workspace_id=${second}`],
    ['GET /meetings/schemas', () => '/meetings/schemas'],
    ['GET /meetings/schemas?workspace_id', () => `/meetings/schemas?workspace_id=${second}`],
    ['GET /meetings/schemas?include_built_in=false', () => '/meetings/schemas?include_built_in=false'],
    ['GET /meetings/schemas?category', () => '/meetings/schemas?category=custom'],
    ['GET /meetings/schemas/{id}', () => '/meetings/schemas/msch_bantBuiltin'],
  ];

  it.each(reads)('%s reads no history table sequentially', async (_name, path) => {
    expect(await seqScansOf(async () => expect((await h.get(path(), t.key)).status).toBe(200))).toEqual([]);
  });

  /** The request counters' flush: once a second for all requests (usage-recorder.ts), never one request's own statement. */
  const isCountersFlush = (query: string) => query.includes('"api_usage_daily"');

  /**
   * A new key of the caller's account, its lookup cached by one request just now: the API-key cache keeps
   * an entry 30 s from its lookup (API_KEY_CACHE_MS), and this file runs longer than that, so a key first
   * used in beforeAll is looked up again by whichever call comes after its entry expires.
   */
  async function keyJustLookedUp(): Promise<string> {
    const { key } = await createApiKey(h.db, { accountId: t.accountId, name: 'Round trips', now: h.clock.now() });
    expect((await h.get('/usage', key)).status).toBe(200);
    return key;
  }

  /** Each scan of `tables` (by default api_keys and api_usage_daily) in the plans of the statements `run` sends: `table index (its condition)`. */
  async function tableScansOf(run: () => Promise<unknown>, tables = CONSOLE_GROWN_TABLES): Promise<string[]> {
    logged.length = 0;
    await run();
    const scans: string[] = [];
    for (const statement of logged.filter((entry) => tables.some((table) => entry.query.includes(`"${table}"`)))) {
      const [row] = await client.unsafe<{ 'QUERY PLAN': unknown }[]>(`explain (format json) ${statement.query}`, statement.params as never[]);
      for (const { relation, node } of tableReadsIn((row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan, tables))
        scans.push(`${relation} ${(node['Index Name'] as string | undefined) ?? node['Node Type']} (${String(node['Index Cond'] ?? '')})`);
    }
    return scans;
  }

  it('the console beside years of page loads (20 000 old browser keys): a page load’s key, the key list, the usage breakdown and signing out read no more than the live keys', async () => {
    const lines: string[] = [];
    await runAdmin(['console', 'invite', t.accountId], h.db, (line) => lines.push(line), 'https://console.example/api/v1');
    const token = /#setup=([A-Za-z0-9]+)/.exec(lines.join('\n'))?.[1];
    const setup = await h.post('/console/setup', undefined, { token, password: 'plans-owner-password-2026' });
    expect(setup.status).toBe(200);
    const member = { cookie: String(setup.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': setup.body.csrf_token as string };
    const pageLoad = () => h.post('/console/session/browser-key', undefined, undefined, member);
    expect((await pageLoad()).status).toBe(200);
    // The next page load revokes the key before it through the index of unrevoked browser keys.
    expect(await tableScansOf(async () => expect((await pageLoad()).status).toBe(200))).toContainEqual(
      expect.stringMatching(/^api_keys api_keys_unrevoked_browser_idx \(\(?console_session_id = /),
    );
    // The list reads the keys people made, never the browser keys.
    const listed = await tableScansOf(async () => expect((await h.get('/console/api-keys', undefined, member)).status).toBe(200));
    expect(listed.filter((scan) => scan.startsWith('api_keys ')).every((scan) => scan.startsWith('api_keys api_keys_people_idx ('))).toBe(true);
    expect(listed.filter((scan) => scan.startsWith('api_keys ')).length).toBeGreaterThan(0);
    // GET /usage's requests per key: the account's usage rows of the period, not every key it ever had.
    const usage = await tableScansOf(async () => expect((await h.get('/usage', t.key)).status).toBe(200));
    expect(usage).toContainEqual(expect.stringMatching(/^api_usage_daily api_usage_daily_account_idx \(+account_id = '[^']+'::text\) AND \(day >= /));
    expect(usage.filter((scan) => scan.startsWith('api_keys ')).every((scan) => / api_keys_(pkey|key_hash_key) /.test(scan))).toBe(true);
    // The usage breakdown: the account's counters of the period, one range per scope, and each named
    // workspace, project and key by its primary key, never every key the account ever had.
    const breakdownScans = await tableScansOf(
      async () => expect((await h.get('/console/usage', undefined, member)).status).toBe(200),
      ['credit_usage_daily', 'api_keys', 'projects', 'workspaces'],
    );
    // By day, feature, workspace, project and key: one statement (they were five round trips).
    expect(logged.filter((entry) => entry.query.includes('"credit_usage_daily"'))).toHaveLength(1);
    const counterScans = breakdownScans.filter((scan) => scan.startsWith('credit_usage_daily '));
    expect(
      counterScans.filter((scan) => /^credit_usage_daily credit_usage_daily_account_idx \(+account_id = '[^']+'::text\) AND \(scope = /.test(scan)),
    ).toHaveLength(4);
    expect(
      counterScans.every((scan) => /^credit_usage_daily credit_usage_daily_(account_idx \(+account_id = |scope_scope_id_day_pk \(+scope = )/.test(scan)),
    ).toBe(true);
    const nameLookups = breakdownScans.filter((scan) => !scan.startsWith('credit_usage_daily '));
    expect(nameLookups).toHaveLength(3);
    // One statement reads the five breakdowns: PostgreSQL numbers the counters table's later uses (credit_usage_daily_2, …).
    expect(nameLookups.every((scan) => / (api_keys|projects|workspaces)_pkey \(\(id = credit_usage_daily(_\d)?\.scope_id\)\)$/.test(scan))).toBe(true);
    // And no call reads more rows than the live keys.
    const calls: [string, () => Promise<{ status: number }>][] = [
      ['a page load’s browser key (revoking the one before)', pageLoad],
      ['the key list', () => h.get('/console/api-keys', undefined, member)],
      ['a new key (counting the active ones against the limit)', () => h.post('/console/api-keys', undefined, { name: 'Plans' }, member)],
      ['the usage breakdown by day, feature, workspace, project and key', () => h.get('/console/usage', undefined, member)],
      ['signing out (revoking the live browser key)', () => h.delete('/console/session', undefined, member)],
    ];
    for (const [name, call] of calls)
      expect({ name, found: await seqScansOf(async () => expect((await call()).status).toBe(200)) }).toEqual({ name, found: [] });
  });

  /**
   * Lists whose custom plan (made for the call's own values) the planner keeps preferring, so they are planned
   * on every call: a search pattern (its selectivity), a filter on one workspace of meetings (sized from the
   * average workspace), the base personas. Their planning costs the same whatever the history; they are
   * named here so that no other statement joins them unnoticed.
   */
  const PLANNED_PER_CALL = ['?search', 'GET /meetings?workspace_id', 'GET /personas?is_custom=false'];

  it.each(reads.filter(([name]) => !name.includes('/usage') && !name.includes('/projects/{id}') && !PLANNED_PER_CALL.some((part) => name.includes(part))))(
    '%s: each statement on a history table is planned once and kept (a generic plan), not planned on every call',
    async (_name, path) => {
      logged.length = 0;
      expect((await h.get(path(), t.key)).status).toBe(200);
      const statements = logged.filter((entry) => HISTORY_TABLES.some((table) => entry.query.includes(`"${table}"`)));
      expect(statements.length).toBeGreaterThan(0);
      // As the server's connections run them: prepared (postgres.js names them), executed again and again.
      const connection = await client.reserve();
      try {
        for (const statement of statements) {
          for (let i = 0; i < 8; i++) await connection.unsafe(statement.query, statement.params as never[], { prepare: true });
          const [plans] = await connection<{ generic_plans: number; custom_plans: number }[]>`
            select generic_plans::int, custom_plans::int from pg_prepared_statements where statement = ${statement.query}`;
          expect({ query: statement.query.slice(0, 200), generic: (plans?.generic_plans ?? 0) > 0 }).toEqual({
            query: statement.query.slice(0, 200),
            generic: true,
          });
        }
      } finally {
        connection.release();
      }
    },
  );

  it.each([
    ['GET /workspaces', () => '/workspaces'],
    ['GET /workspaces/{id}', () => `/workspaces/${t.workspaceId}`],
  ])('%s reads its member, project and thread counts from the workspace rows: no statement reads a history table', async (_name, path) => {
    logged.length = 0;
    expect((await h.get(path(), t.key)).status).toBe(200);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter((entry) => HISTORY_TABLES.some((table) => entry.query.includes(`"${table}"`))).map((entry) => entry.query)).toEqual([]);
  });

  it.each([
    ['GET /folders?workspace_id', () => `/folders?workspace_id=${t.workspaceId}`],
    ['GET /folders/{id}?include_files=false', () => `/folders/${folderId}?include_files=false`],
  ])('%s reads file_count from the folder rows: no statement reads the files', async (_name, path) => {
    logged.length = 0;
    const response = await h.get(path(), t.key);
    expect(response.status).toBe(200);
    expect(response.body.file_count ?? response.body.data.find((f: { id: string }) => f.id === folderId).file_count).toBe(OWN_ROWS / 20);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter((entry) => entry.query.includes('"files"')).map((entry) => entry.query)).toEqual([]);
  });

  it('a charged /responses call (hold, usage limits, budget alert, charge) reads no history table sequentially, inside its functions too', async () => {
    expect((await h.patch(`/workspaces/${t.workspaceId}`, t.key, { usage_limit: 900_000, budget_alert: 800_000 })).status).toBe(200);
    expect(
      await seqScansOf(
        async () =>
          expect((await h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Another price check?' })).status).toBe(200),
        { nested: true },
      ),
    ).toEqual([]);
  });

  it('a /responses call continuing a chain (previous_response_id) with an item_reference reads one row per turn: no sequential scan, no walk of the account’s responses', async () => {
    const ask = (extra: Record<string, unknown>) => h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', ...extra });
    const first = await ask({ input: 'Is the pilot worth it?' });
    const second = await ask({ input: 'And the full rollout?', previous_response_id: first.body.id });
    expect(second.status).toBe(200);
    const input = [
      { type: 'item_reference', id: first.body.output[0].id },
      { role: 'user', content: 'Which of the two, then?' },
    ];
    const statements: string[] = [];
    const found = await seqScansOf(async () => {
      expect((await ask({ input, previous_response_id: second.body.id })).status).toBe(200);
      statements.push(...logged.map((entry) => entry.query));
    });
    expect(found).toEqual([]);
    // The two reads this adds: the item's lookup and the chain's one recursive statement.
    expect(statements.filter((query) => /jsonb_path_query_array|with recursive chain/.test(query))).toHaveLength(2);
  });

  it('GET /responses/{id}/input_items of a chained response reads its row, its references and the chain: no sequential scan', async () => {
    const ask = (extra: Record<string, unknown>) => h.post('/responses', t.key, { model: 'service-1', persona_id: 'persona_saas_cfo', ...extra });
    const first = await ask({ input: 'Is the pilot worth it?' });
    const second = await ask({
      input: [
        { type: 'item_reference', id: first.body.output[0].id },
        { role: 'user', content: 'And the full rollout?' },
      ],
      previous_response_id: first.body.id,
    });
    const key = await keyJustLookedUp();
    const statements: string[] = [];
    const found = await seqScansOf(async () => {
      const page = await h.get(`/responses/${second.body.id}/input_items`, key);
      expect([page.status, page.body.data.length]).toEqual([200, 4]);
      statements.push(...logged.map((entry) => entry.query).filter((query) => !isCountersFlush(query)));
    });
    expect(found).toEqual([]);
    // The response's row by primary key, the item's lookup in the output-item index, the chain's one statement.
    expect(statements).toHaveLength(3);
  });

  it('a conversation of 50 000 items: a page after a cursor, one item, and a /responses call reading and appending to it touch at most a page', async () => {
    const { id } = (await h.post('/conversations', t.key, { items: [{ role: 'user', content: 'My renewal date is March 3.' }] })).body;
    await client.unsafe(
      `insert into conversation_items (conversation_id, seq, id, item, chars, created_at)
       select $1, g, 'msg_bulk' || g, jsonb_build_object('id', 'msg_bulk' || g, 'type', 'message', 'role', 'user', 'status', 'completed',
         'content', jsonb_build_array(jsonb_build_object('type', 'input_text', 'text', 'Item ' || g))), 6, now()
       from generate_series(2, 50000) g`,
      [id],
    );
    await client.unsafe('update conversations set item_seq = 50000 where id = $1', [id]);
    await client.unsafe('analyze conversation_items');
    const found = await seqScansOf(async () => {
      const page = await h.get(`/conversations/${id}/items?after=msg_bulk25000&limit=20`, t.key);
      expect(page.body.data.map((item: any) => item.id).slice(0, 2)).toEqual(['msg_bulk24999', 'msg_bulk24998']);
      expect((await h.get(`/conversations/${id}/items/msg_bulk7`, t.key)).status).toBe(200);
      const answered = await h.post('/responses', t.key, {
        model: 'service-1',
        persona_id: 'persona_saas_cfo',
        conversation: id,
        input: 'Go on.',
        truncation: 'auto',
      });
      expect(answered.status).toBe(200);
    });
    expect(found).toEqual([]);
    // The turn was appended after the 50 000th item, in order.
    const [latest] = await client.unsafe<{ seq: string }[]>('select max(seq)::text as seq from conversation_items where conversation_id = $1', [id]);
    expect(latest!.seq).toBe('50002');
  });

  it('stored chat completions: a page in either order, after a cursor, filtered by metadata, one completion and its messages, beside 20 000 of them and the account’s responses', async () => {
    const made = await h.post('/chat/completions', t.key, {
      model: 'service-1',
      persona_id: 'persona_saas_cfo',
      metadata: { tag: 'rare' },
      messages: [{ role: 'user', content: 'Price check?' }],
    });
    expect(made.status).toBe(200);
    await clone('model_responses', made.body.id, 20_000, {
      body: `jsonb_set(src.body, '{id}', to_jsonb(src.id || '_' || g))`,
      metadata: `case when g % 500 = 0 then '{"tag":"rare"}'::jsonb else '{}'::jsonb end`,
    });
    // As many of the account's responses, each half a minute from a completion: an index of all its model
    // answers would read two rows for every completion listed.
    const [response] = await client.unsafe<{ id: string }[]>(`select id from model_responses where account_id = $1 and object = 'response' limit 1`, [
      t.accountId,
    ]);
    await clone('model_responses', response!.id, 20_000, {
      id: `src.id || '_chat_' || g`,
      created_at: `(select created_at from model_responses where id = '${made.body.id}') - g * interval '1 minute' - interval '30 seconds'`,
    });
    await client.unsafe('analyze model_responses');
    const found = await seqScansOf(async () => {
      const oldest = await h.get('/chat/completions?limit=20', t.key);
      expect([oldest.status, oldest.body.data.length]).toEqual([200, 20]);
      const after = await h.get(`/chat/completions?after=${made.body.id}_10000&limit=20`, t.key);
      expect(after.body.data[0].id).toBe(`${made.body.id}_9999`);
      expect((await h.get(`/chat/completions?order=desc&after=${made.body.id}_10000`, t.key)).body.data[0].id).toBe(`${made.body.id}_10001`);
      // Two of the window's 1 000 past the cursor hold the pair.
      const rare = await h.get(`/chat/completions?metadata[tag]=rare&after=${made.body.id}_10001`, t.key);
      expect([rare.body.data.length, rare.body.has_more]).toEqual([2, true]);
      expect((await h.get(`/chat/completions/${made.body.id}_123`, t.key)).status).toBe(200);
      expect((await h.get(`/chat/completions/${made.body.id}_123/messages`, t.key)).body.data.length).toBe(1);
    });
    expect(found).toEqual([]);
  });

  it('the retention job deletes oldest first through the created_at index, never scanning every stored response', async () => {
    expect(await seqScansOf(async () => expect(await expireResponses(h.db, new Date('2001-01-01T00:00:00Z'))).toBe(0))).toEqual([]);
    // A delete is only planned (not run) by seqScansOf, so name the index: without it the planner walks all of
    // model_responses_workspace_idx, every stored response, filtering on its second column.
    const statement = logged.find((entry) => entry.query.includes('with gone as'))!;
    const [row] = await client.unsafe<{ 'QUERY PLAN': unknown }[]>(`explain (format json) ${statement.query}`, statement.params as never[]);
    const scans = [...tableReadsIn((row!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan, ['model_responses'])].map(({ node }) =>
      `${node['Node Type']} ${node['Index Name'] ?? ''}`.trim(),
    );
    expect(scans).toContain('Index Scan model_responses_created_idx');
  });

  it('the media expiry finds its due meetings through the index of meetings still done, never scanning every meeting', async () => {
    // Nothing completed 30 days before 1900: the look itself is what is planned and run.
    const deps = { db: h.db, clock: { now: () => new Date('1900-01-01T00:00:00Z') } } as unknown as MeetingJobDeps;
    expect(await seqScansOf(async () => expect(await expireMeetingMedia(deps)).toEqual([]))).toEqual([]);
    const statement = logged.find((entry) => entry.query.includes('"meetings"'))!;
    const [row] = await client.unsafe<{ 'QUERY PLAN': unknown }[]>(`explain (format json) ${statement.query}`, statement.params as never[]);
    expect(JSON.stringify(row!['QUERY PLAN'])).toContain('"Index Name":"meetings_media_due_idx"');
  });

  it('the usage reconcile answers on a history that takes longer to scan than a statement may run (its transaction lifts the timeout)', async () => {
    // The server's connections stop a statement after 15 s; here 5 ms, shorter than one scan of this ledger.
    const strict = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { statement_timeout: 5 } });
    try {
      const db = drizzle({ client: strict, schema }) as unknown as Database;
      const timedOut = await reconcileUsageCounters(db).then(
        () => 'answered',
        (err: Error) => String((err.cause as Error | undefined)?.message ?? err.message),
      );
      expect(timedOut).toMatch(/statement timeout/);
      expect(await reconcile(db)).toEqual(await reconcile(h.db));
    } finally {
      await strict.end();
    }
  });

  it('the open holds the metrics scrape counts are an index range of the running ones, beside 20 000 holds left by crashed processes', async () => {
    await client.unsafe(
      `insert into credit_reservations (id, account_id, credits, created_at, expires_at)
       select 'hold_crashed_' || g, id, 5, now() - interval '2 hours', now() - interval '1 hour' - g * interval '1 second'
       from accounts, generate_series(1, 20000) g where id = $1`,
      [t.accountId],
    );
    await client.unsafe('analyze credit_reservations');
    try {
      const scans = await tableScansOf(async () => {
        const stop = collectCreditHolds(h.db);
        try {
          await scrapeMetrics();
        } finally {
          stop();
        }
      }, ['credit_reservations']);
      expect(scans).toEqual([expect.stringMatching(/^credit_reservations credit_reservations_expires_idx \(\(expires_at > /)]);
    } finally {
      await client.unsafe(`delete from credit_reservations where id like 'hold_crashed_%'`);
    }
  });

  it('the scalar helpers every hold and charge call keep their plans for the session (PL/pgSQL, not SQL, which PostgreSQL before 18 plans again in each calling statement)', async () => {
    const helpers = await client<{ proname: string; lanname: string }[]>`
      select p.proname, l.lanname from pg_proc p join pg_language l on l.oid = p.prolang
      where p.proname in ('credit_held_by_others', 'credit_period_usage') order by p.proname`;
    expect(helpers).toEqual([
      { proname: 'credit_held_by_others', lanname: 'plpgsql' },
      { proname: 'credit_period_usage', lanname: 'plpgsql' },
    ]);
  });

  /** The statements `run` made the driver send (one round trip each; BEGIN and COMMIT would count). */
  async function sentBy(run: () => Promise<unknown>): Promise<string[]> {
    sent.length = 0;
    await run();
    return sent.filter((query) => !isCountersFlush(query)).map((query) => query.replace(/\s+/g, ' ').slice(0, 60));
  }

  it('a charged /responses call with usage limits and a budget alert is 2 round trips: the hold and the settlement, no BEGIN/COMMIT (issue 23: at most 4)', async () => {
    const key = await keyJustLookedUp();
    // Issue 23 measured 16; then 11 (7 statements in two transactions); the hold and the charge are now one function call each.
    const statements = await sentBy(async () =>
      expect((await h.post('/responses', key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Count me' })).status).toBe(200),
    );
    expect(statements, statements.join('\n')).toHaveLength(2);
    expect(statements[0]).toContain('hold_credits(');
    expect(statements[1]).toMatch(/^with settled as \(select \* from charge_credits\(/);
  });

  it('a charged /chat/completions call is the same 2 round trips', async () => {
    const key = await keyJustLookedUp();
    const body = { model: 'service-1', persona_id: 'persona_saas_cfo', messages: [{ role: 'user', content: 'Count me too' }] };
    const statements = await sentBy(async () => expect((await h.post('/chat/completions', key, body)).status).toBe(200));
    expect(statements, statements.join('\n')).toHaveLength(2);
    expect(statements[0]).toContain('hold_credits(');
    expect(statements[1]).toContain('charge_credits(');
  });

  it('a call with a custom persona reads it once, then is the same 2 round trips (the persona cache)', async () => {
    const key = await keyJustLookedUp();
    const created = await h.post('/personas', key, { description: 'Operations director at a regional hospital group, careful with budgets.' });
    expect(created.status).toBe(200);
    const body = { model: 'service-1', persona_id: created.body.id, input: 'Would you buy this?' };
    const first = await sentBy(async () => expect((await h.post('/responses', key, body)).status).toBe(200));
    expect(first, first.join('\n')).toHaveLength(3);
    expect(first[0]).toContain('"personas"');
    const next = await sentBy(async () => expect((await h.post('/responses', key, body)).status).toBe(200));
    expect(next, next.join('\n')).toHaveLength(2);
    expect(next[0]).toContain('hold_credits(');
  });

  it('GET /usage is one statement after the counters flush: the account, its tier, the period counters and the requests per key', async () => {
    const key = await keyJustLookedUp();
    // Made 7 before (the account, two credit sums, the minutes, the stored bytes, the keys each a round trip).
    sent.length = 0;
    expect((await h.get('/usage', key)).status).toBe(200);
    // The flush (an upsert of the counters this process holds, if any) reads nothing; the read is one select.
    const statements = sent.map((query) => query.replace(/\s+/g, ' ')).filter((query) => !/^insert into "api_usage_daily"/.test(query));
    expect(statements, statements.join('\n')).toHaveLength(1);
    expect(statements[0]).toMatch(/^select /);
    expect(statements[0]).toContain('"api_usage_daily"');
  });

  it('a streamed /responses call is the same 2 round trips: the hold reads the budget alert its headers carry', async () => {
    const key = await keyJustLookedUp();
    const statements = await sentBy(async () => {
      const response = await h.post('/responses', key, { model: 'service-1', persona_id: 'persona_saas_cfo', input: 'Stream me', stream: true });
      expect(response.status).toBe(200);
    });
    expect(statements, statements.join('\n')).toHaveLength(2);
    // The hold's statement (hold_credits, past the 60 characters kept) with the alert read beside it.
    expect(statements[0]).toMatch(/^select hold\.\*, \(select w\.budget_alert is not null/);
    expect(statements[1]).toMatch(/^with settled as \(select \* from charge_credits\(/);
  });
});
