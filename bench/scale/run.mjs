// History that grows (issue 23): one account whose history is grown with bulk SQL from a fresh start to
// 10k, 100k and 1M credit-ledger rows (half as many stored responses, a tenth as many of each other history
// kind, at most 100k, console page loads with their browser keys among them), then sequential requests per
// endpoint at each step: p50/p90 and the growth factor to the largest step from fresh and from one full page
// of each list. Read the growth, not the absolute times.
// Each step is vacuumed and analysed before its requests. Two reference histories that never grow (fresh,
// and one full page of each list) are measured beside each step, requests interleaved, and the last step is
// also given as a ratio to them: drift of the machine cancels out.
//
//   pnpm build && pnpm bench:scale [--database postgres|pglite] [--steps 10000,100000,1000000] [--requests 100] [--json]
//
// PostgreSQL (the default; BENCH_DATABASE_URL, else TEST_DATABASE_URL): a scratch database per history,
// dropped afterwards, kept with BENCH_SCALE_KEEP=1 to read its plans. PGlite: a data directory per history.
// A PGlite server owns its directory while it runs, so the bench stops it, writes the history with PGlite
// in its own process, and starts it again (a new port) around every write.
// Only 127.0.0.1 is a target; every phase is bounded in count.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { example } from '../lib/contract.mjs';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { apiDir, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'postgres' },
    steps: { type: 'string', default: '10000,100000,1000000' },
    requests: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
  },
});
const STEPS = args.steps.split(',').map(Number);
const REQUESTS = Number(args.requests);
const KEY = `svc_live_${randomBytes(20).toString('hex')}`;
const PERSONA = 'persona_saas_cfo';

const DATABASE = args.database;
if (DATABASE !== 'postgres' && DATABASE !== 'pglite') {
  log(`--database is postgres or pglite, not ${DATABASE}`);
  process.exit(1);
}

// The API's own drivers: the bench package does not depend on them.
const require = createRequire(import.meta.url);
const postgres = require(require.resolve('postgres', { paths: [apiDir] }));
const { PGlite } = await import(pathToFileURL(require.resolve('@electric-sql/pglite', { paths: [apiDir] })).href);
// How a sign-in stores a console session's token (its SHA-256), from the built server.
const { hashSecret } = await import(pathToFileURL(join(apiDir, 'dist/auth/api-keys.js')).href);

const JSON_VALUE = Symbol('json');
/**
 * PGlite behind the part of postgres.js's interface this bench uses: tagged templates (values become
 * parameters), `unsafe(text, params)` and `json(value)`.
 */
function pgliteSql(db) {
  const query = async (strings, ...values) => {
    const text = strings.reduce((joined, part, i) => `${joined}$${i}${part}`);
    const params = values.map((value) => (value?.[JSON_VALUE] ? JSON.stringify(value.value) : value));
    return (await db.query(text, params)).rows;
  };
  query.unsafe = async (text, params = []) => (params.length > 0 ? (await db.query(text, params)).rows : ((await db.exec(text)).at(-1)?.rows ?? []));
  query.json = (value) => ({ [JSON_VALUE]: true, value });
  return query;
}

/**
 * Where a history lives. `write(fn)` runs `fn(sql)` against its database: on PostgreSQL beside the running
 * server; on PGlite with the server stopped (it owns the directory), then started again.
 */
async function openStore(name) {
  if (DATABASE === 'postgres') {
    const pg = await scratchDatabase(`persona_bench_scale_${name}`);
    if (!pg) {
      log('bench:scale --database postgres needs PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
      process.exit(1);
    }
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    const env = { BOOTSTRAP_API_KEY: KEY, DATABASE_URL: pg.url, DATA_DIR: join(apiDir, '.bench-scale-unused') };
    const store = {
      api: await startApiServer(env),
      write: (fn) => fn(sql),
      async close() {
        await stopProcess(store.api.child);
        await sql.end();
        if (process.env.BENCH_SCALE_KEEP) log(`kept ${pg.url} (key ${KEY})`);
        else await pg.drop();
      },
    };
    return store;
  }
  const dataDir = mkdtempSync(join(tmpdir(), `persona-bench-scale-${name}-`));
  const env = { BOOTSTRAP_API_KEY: KEY, DATA_DIR: dataDir };
  const store = {
    api: await startApiServer(env),
    async write(fn) {
      await stopProcess(store.api.child);
      const db = await PGlite.create(join(dataDir, 'pglite'));
      try {
        return await fn(pgliteSql(db));
      } finally {
        await db.close();
        store.api = await startApiServer(env);
      }
    },
    async close() {
      await stopProcess(store.api.child);
      if (process.env.BENCH_SCALE_KEEP) log(`kept ${dataDir} (key ${KEY})`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return store;
}

/**
 * One account's history in a database of its own, served by its own API process: the seeded rows every
 * step copies, and the requests of the endpoints below with that history's ids.
 */
async function openHistory(name) {
  const store = await openStore(name);

  /** A request whose whole body has arrived (not parsed: the bench times the server, not its own JSON.parse). */
  async function send(method, path, body, extraHeaders) {
    const res = await fetch(`${store.api.baseUrl}/api/v1${path}`, {
      method,
      headers: extraHeaders ? { ...headers, ...extraHeaders } : headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text;
  }
  const call = async (method, path, body) => JSON.parse(await send(method, path, body));

  /** Copies row `id` of `table` `count` times: new ids, timestamps a second apart going back, other columns as given. */
  async function clone(sql, table, id, count, overrides = {}) {
    if (count <= 0) return;
    const columns = await sql`select column_name, column_default from information_schema.columns
      where table_schema = 'public' and table_name = ${table} order by ordinal_position`;
    const names = columns.filter((c) => !c.column_default?.startsWith('nextval')).map((c) => c.column_name);
    const value = (name) =>
      overrides[name] ??
      (name === 'id' ? `src.id || '_' || g` : name === 'created_at' || name === 'updated_at' ? `src.${name} - g * interval '1 second'` : `src."${name}"`);
    const offset = await count_(sql, table);
    await sql.unsafe(
      `insert into "${table}" (${names.map((n) => `"${n}"`).join(', ')})
       select ${names.map(value).join(', ')} from "${table}" src, generate_series(${offset}, ${offset + count - 1}) g where src.id = $1`,
      [id],
    );
  }
  const count_ = async (sql, table) => Number((await sql.unsafe(`select count(*) as n from "${table}"`))[0].n);

  // The account, its workspace and one of each history row to copy, then a conversation of two turns to read
  // back and continue (its rows are never copied: the templates are each kind's first row).
  const workspace = (await call('GET', '/workspaces')).data[0].id;
  const project = (await call('POST', '/projects', { workspace_id: workspace, name: 'Grown' })).id;
  await call('POST', '/responses', { model: 'service-1', persona_id: PERSONA, input: 'Price check?' });
  await call('POST', '/generations', { app_id: 'app_linkedin_post', input_data: { topic: 'Cold brew', post_length: 'short' }, project_id: project });
  const researchThread = (await call('POST', '/agent/threads', { workspace_id: workspace, title: 'Research', project_id: project })).id;
  // The other lists a workspace keeps, one row each to copy (the contract's example requests). The analysis's
  // job cannot fetch its video here and fails: the row stays, as a listed analysis.
  const made = {
    folders: (await call('POST', '/folders', example('POST /folders', { workspace_id: workspace }))).id,
    focus_groups: (
      await call('POST', '/focus-groups', example('POST /focus-groups', { persona_ids: [PERSONA, 'persona_agency_founder'], workspace_id: workspace }))
    ).id,
    news_digests: (await call('POST', '/news/digests', example('POST /news/digests', { persona_id: PERSONA, workspace_id: workspace }))).id,
    video_analyses: (await call('POST', '/video-analyses', example('POST /video-analyses', { workspace_id: workspace }))).id,
  };
  await call('POST', '/chat/completions', { model: 'service-1', persona_id: PERSONA, messages: [{ role: 'user', content: 'Price check?' }] });
  const opening = await call('POST', '/responses', { model: 'service-1', persona_id: PERSONA, input: 'Pilot or full rollout?' });
  const reply = await call('POST', '/responses', { model: 'service-1', persona_id: PERSONA, input: 'And the price?', previous_response_id: opening.id });
  const conversation = { opening: opening.output[0].id, last: reply.id };
  // A server conversation (/conversations) whose items grow with the history.
  const thread = (await call('POST', '/conversations', { items: [{ role: 'user', content: 'We close the books on NetSuite.' }] })).id;

  // The console's session cookie: the key's owner signed in (GET /console/usage).
  const consoleToken = randomBytes(32).toString('base64url');
  const { charge, templates } = await store.write(async (sql) => {
    const [account] = await sql`select account_id from workspaces where id = ${workspace}`;
    // Conversation calls read up to 1 000 items each (hundreds of credits a call): room for every request.
    await sql`update accounts set credit_balance = 1000000000000 where id = ${account.account_id}`;
    const now = new Date();
    // As a sign-in stores it (src/resources/console/sessions.ts): the token's hash, never the token.
    const [owner] = await sql`select user_id from api_keys where account_id = ${account.account_id} and console_session_id is null order by created_at limit 1`;
    await sql`insert into console_sessions (id, user_id, account_id, token_hash, csrf_token, created_at, expires_at)
      values ('cs_benchlive', ${owner.user_id}, ${account.account_id}, ${hashSecret(consoleToken)}, 'bench',
        ${now}, ${new Date(now.getTime() + 7 * 24 * 3600 * 1000)})`;
    await sql`insert into files (id, workspace_id, name, type, size_bytes, size, storage_key, created_at, updated_at)
      values ('file_benchseed', ${workspace}, 'memo.txt', 'text/plain', 10, 10, 'upl_benchseed.txt', ${now}, ${now})`;
    await sql`insert into meetings (id, workspace_id, title, source, bot_name, join_type, join_at, status, status_changes, analysis_status, schema_ids, created_at, updated_at)
      values ('mtg_benchseed', ${workspace}, 'Weekly', 'import', 'Notes', 'immediate', ${now}, 'done',
        ${sql.json([{ code: 'done', sub_code: null, message: null, created_at: now.toISOString() }])}, 'completed', ${sql.json([])}, ${now}, ${now})`;
    // Each meeting scored by a built-in schema, as the imports' default schemas would: GET /meetings/schemas
    // shows its downloads and usage_count.
    await sql`insert into meeting_schema_results (id, meeting_id, workspace_id, schema_id, schema_name, schema_version, schema_category,
        field_values, scores, evidence, engine, processing_time_ms, created_at, updated_at)
      values ('msr_benchseed', 'mtg_benchseed', ${workspace}, 'msch_bantBuiltin', 'BANT', 1, 'qualification',
        ${sql.json([])}, ${sql.json({})}, ${sql.json([])}, 'offline', 1, ${now}, ${now})`;
    // One question in the research thread, copied as its conversation grows (answers are the jobs' work).
    await sql`insert into agent_messages (id, thread_id, role, content, status, created_at, updated_at)
      values ('amsg_benchseed', ${researchThread}, 'user', 'What changed in pricing?', 'completed', ${now}, ${now})`;
    const seed = async (table, where = `workspace_id = '${workspace}'`) =>
      (await sql.unsafe(`select id from "${table}" where ${where} order by created_at, id limit 1`))[0].id;
    return {
      charge: await seed('credit_ledger', `account_id = '${account.account_id}' and kind = 'charge' and project_id is not null`),
      templates: {
        model_responses: await seed('model_responses', `account_id = '${account.account_id}' and object = 'response'`),
        chat_completions: await seed('model_responses', `account_id = '${account.account_id}' and object = 'chat.completion'`),
        generations: await seed('generations'),
        agent_threads: await seed('agent_threads'),
        files: await seed('files'),
        meetings: await seed('meetings'),
        meeting_schema_results: 'msr_benchseed',
        agent_messages: 'amsg_benchseed',
        ...made,
      },
    };
  });
  /**
   * Adds `count` copies of the server conversation's first item after its latest one. A call reads at most
   * the latest 1 000 items, and what they are (its own appended turns or these short copies) sets its cost;
   * topping up the grown and the one-page histories alike before each step keeps their calls reading the
   * same items, so what differs is the history behind them.
   */
  async function addThreadItems(sql, count) {
    await sql.unsafe(
      `insert into conversation_items (conversation_id, seq, id, item, chars, created_at)
       select src.conversation_id, c.item_seq + g, 'msg_grown' || (c.item_seq + g), jsonb_set(src.item, '{id}', to_jsonb('msg_grown' || (c.item_seq + g))), src.chars, src.created_at
       from conversation_items src join conversations c on c.id = src.conversation_id, generate_series(1, $2::bigint) g
       where src.conversation_id = $1 and src.seq = 1`,
      [thread, count],
    );
    await sql.unsafe('update conversations set item_seq = item_seq + $2::bigint where id = $1', [thread, count]);
  }
  // A brand voice learned from the seeded file (its job finds no bytes and fails, refunded: the row stays, as a listed voice).
  templates.brand_voices = (
    await call('POST', '/brand-voices', example('POST /brand-voices', { workspace_id: workspace, sources: { file_ids: ['file_benchseed'] } }))
  ).id;
  const threadItems = async (sql) => Number((await sql`select item_seq from conversations where id = ${thread}`)[0].item_seq);
  return {
    name,
    store,
    call,
    send,
    clone,
    count: count_,
    workspace,
    project,
    charge,
    templates,
    conversation,
    thread,
    researchThread,
    addThreadItems,
    threadItems,
    consoleToken,
  };
}

const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
// The grown history, and two that never grow, measured in the same window as each of its steps (requests
// interleaved): fresh, and one full page of each list. A shared machine's speed drifts over a run by more
// than the growth this bench looks for; a ratio to a reference measured beside it does not.
const grown = await openHistory('grown');
const freshReference = await openHistory('fresh');
const pageReference = await openHistory('page');
const histories = [grown, freshReference, pageReference];
const { clone, count, charge, templates } = grown;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The endpoints of the issue's table and the other lists: [name, method, path, body, headers] with a history's ids. */
const endpointsOf = ({ project, workspace, conversation, thread, researchThread, consoleToken }) => [
  ['POST /responses', 'POST', '/responses', () => ({ model: 'service-1', persona_id: PERSONA, input: 'Would you pay $18 per seat?' })],
  [
    'POST /responses (previous_response_id, item_reference)',
    'POST',
    '/responses',
    () => ({
      model: 'service-1',
      persona_id: PERSONA,
      input: [
        { type: 'item_reference', id: conversation.opening },
        { role: 'user', content: 'Which of the two, then?' },
      ],
      previous_response_id: conversation.last,
    }),
  ],
  ['GET /responses/{id}', 'GET', `/responses/${conversation.last}`],
  [
    'POST /responses (conversation)',
    'POST',
    '/responses',
    () => ({ model: 'service-1', persona_id: PERSONA, input: 'Which ERP do we use?', conversation: thread, truncation: 'auto' }),
  ],
  ['GET /conversations/{id}/items', 'GET', `/conversations/${thread}/items`],
  [
    'POST /chat/completions',
    'POST',
    '/chat/completions',
    () => ({ model: 'service-1', persona_id: PERSONA, messages: [{ role: 'user', content: 'Would you pay $18 per seat?' }] }),
  ],
  [
    'POST /generations (project)',
    'POST',
    '/generations',
    () => ({ app_id: 'app_linkedin_post', input_data: { topic: 'Cold brew', post_length: 'short' }, project_id: project }),
  ],
  ['GET /chat/completions', 'GET', '/chat/completions'],
  ['GET /usage', 'GET', '/usage'],
  ['GET /console/usage', 'GET', '/console/usage', undefined, { cookie: `persona_session=${consoleToken}` }],
  ['GET /projects', 'GET', '/projects'],
  ['GET /projects/{id}', 'GET', `/projects/${project}`],
  ['GET /workspaces', 'GET', '/workspaces'],
  ['GET /files', 'GET', '/files'],
  ['GET /files?workspace_id', 'GET', `/files?workspace_id=${workspace}`],
  ['GET /meetings', 'GET', '/meetings'],
  ['GET /meetings/schemas', 'GET', '/meetings/schemas'],
  ['GET /agent/threads', 'GET', '/agent/threads'],
  // One thread's own history: its messages, oldest first (the default) and the latest page.
  ['GET /agent/threads/{id}/messages', 'GET', `/agent/threads/${researchThread}/messages`],
  ['GET /agent/threads/{id}/messages?order=desc', 'GET', `/agent/threads/${researchThread}/messages?order=desc`],
  ['GET /generations', 'GET', '/generations'],
  ['GET /folders?workspace_id', 'GET', `/folders?workspace_id=${workspace}`],
  ['GET /focus-groups', 'GET', '/focus-groups'],
  ['GET /news/digests', 'GET', '/news/digests'],
  ['GET /brand-voices', 'GET', '/brand-voices'],
  ['GET /video-analyses', 'GET', '/video-analyses'],
  ['GET /personas', 'GET', '/personas'],
  ['GET /news/stories', 'GET', '/news/stories'],
];
const endpointNames = endpointsOf(grown).map(([name]) => name);
for (const history of histories) history.endpoints = endpointsOf(history);

/**
 * Each endpoint: a warm-up, then REQUESTS sequential requests to each history, interleaved (the order
 * turning each round), so the grown one and the references are measured in the same moments.
 */
async function measureStep(label) {
  const row = { step: label, grown: {}, fresh: {}, page: {} };
  for (const [index, name] of endpointNames.entries()) {
    const times = new Map(histories.map((history) => [history, []]));
    for (const history of histories) {
      const [, method, path, body, extraHeaders] = history.endpoints[index];
      for (let i = 0; i < 5; i++) await history.send(method, path, body?.(), extraHeaders);
    }
    for (let i = 0; i < REQUESTS; i++) {
      for (let k = 0; k < histories.length; k++) {
        const history = histories[(i + k) % histories.length];
        const [, method, path, body, extraHeaders] = history.endpoints[index];
        const started = performance.now();
        await history.send(method, path, body?.(), extraHeaders);
        times.get(history).push(performance.now() - started);
      }
    }
    for (const history of histories) {
      const sorted = times.get(history).sort((a, b) => a - b);
      row[history.name][name] = { p50: Number(percentile(sorted, 50).toFixed(2)), p90: Number(percentile(sorted, 90).toFixed(2)) };
    }
  }
  log(`  ${label}: ${endpointNames.map((name) => `${name} ${row.grown[name].p50} (fresh ${row.fresh[name].p50}, page ${row.page[name].p50})`).join(', ')}`);
  return row;
}

/**
 * What a maintained database would have done to the grown tables before the requests: without it, autovacuum
 * starts on the bulk-inserted tables during the measurement (it did at 1M rows: GET /news/stories, which reads
 * no history, went from 0.63 to 2.02 ms p90) and the first readers set every row's hint bits.
 */
async function settle(sql) {
  await sql`vacuum (analyze)`;
  await sql`checkpoint`;
}

/** A built-in schema's result on every meeting copied so far (the copies are `<template>_<n>`, as the results'). */
async function scoreMeetings(history, sql) {
  const missing = (await history.count(sql, 'meetings')) - (await history.count(sql, 'meeting_schema_results'));
  await history.clone(sql, 'meeting_schema_results', history.templates.meeting_schema_results, missing, { meeting_id: `src.meeting_id || '_' || g` });
}

/** The tables of the lists grown beside the ledger: a tenth as many rows (at most 100k), one page in the one-page history. */
const GROWN_LISTS = ['generations', 'agent_threads', 'meetings', 'agent_messages', 'folders', 'focus_groups', 'news_digests', 'brand_voices', 'video_analyses'];

/** One full page of each list (50 rows; the meetings' default page is 20). */
async function fillOnePage(history) {
  await history.store.write(async (sql) => {
    await history.clone(sql, 'files', history.templates.files, 50 - (await history.count(sql, 'files')), {
      storage_key: `'upl_' || md5(src.id || g) || '.txt'`,
    });
    for (const table of GROWN_LISTS) {
      await history.clone(sql, table, history.templates[table], 50 - (await history.count(sql, table)));
    }
    await scoreMeetings(history, sql);
    // A conversation call reads at most 1 000 items: a full "page" of them.
    await history.addThreadItems(sql, 1_000);
    await settle(sql);
  });
}

const rows = [];
try {
  log(`Benchmark (${DATABASE}): history steps ${STEPS.join(', ')} ledger rows; ${REQUESTS} sequential requests per endpoint and history`);
  await fillOnePage(pageReference);
  await freshReference.store.write(settle);
  rows.push(await measureStep('fresh'));
  // Fresh, a list returns one item, so part of its growth to the first step is the page filling up, not
  // the history behind it.
  await fillOnePage(grown);
  rows.push(await measureStep('one page'));
  // The counters of the grown history, built from the ledger as the migrations' backfills build them.
  const { countsRebuild, usageCountersBackfills } = await import(pathToFileURL(join(apiDir, 'dist/billing/reconcile.js')).href);
  const backfills = usageCountersBackfills();
  for (const step of STEPS) {
    const started = performance.now();
    const others = Math.min(100_000, Math.round(step / 10));
    await grown.store.write(async (sql) => {
      // Ledger rows in the project and outside it, as a month and more of use.
      await clone(sql, 'credit_ledger', charge, step - (await count(sql, 'credit_ledger')), {
        project_id: `case when g % 2 = 0 then src.project_id end`,
        created_at: `src.created_at - (g * interval '5 seconds')`,
      });
      // Stored chat completions (a tenth as many), then responses to half the ledger's rows, interleaved in time.
      const completions = Number((await sql`select count(*) as n from model_responses where object = 'chat.completion'`)[0].n);
      await clone(sql, 'model_responses', templates.chat_completions, others - completions, {
        body: `jsonb_set(src.body, '{id}', to_jsonb(src.id || '_' || g))`,
      });
      await clone(sql, 'model_responses', templates.model_responses, Math.round(step / 2) - (await count(sql, 'model_responses')));
      for (const table of GROWN_LISTS) await clone(sql, table, templates[table], others - (await count(sql, table)));
      await scoreMeetings(grown, sql);
      await clone(sql, 'files', templates.files, others - (await count(sql, 'files')), { storage_key: `'upl_' || md5(src.id || g) || '.txt'` });
      // Console page loads, a tenth as many: each made a browser key, revoked by the next one, with requests on
      // its day, five minutes apart going back from 400 days ago (outside the billing period GET /usage reads).
      const [owner] = await sql`select id, account_id from api_keys where console_session_id is null order by created_at limit 1`;
      const loads = Number((await sql`select count(*) as n from api_keys where console_session_id is not null`)[0].n);
      const at = `now() - interval '400 days' - g * interval '5 minutes'`;
      await sql.unsafe(
        `insert into api_keys (id, account_id, user_id, name, key_hash, key_prefix, created_at, revoked_at, console_session_id, expires_at)
         select 'key_browser_' || g, account_id, user_id, 'Console (browser)', md5('browser' || g), key_prefix, ${at}, ${at} + interval '4 minutes',
           'cs_bench_' || (g / 5), ${at} + interval '12 hours'
         from api_keys, generate_series($2::int, $3::int) g where id = $1`,
        [owner.id, loads + 1, others],
      );
      await sql.unsafe(
        `insert into api_usage_daily (api_key_id, account_id, day, requests, last_request_at)
         select 'key_browser_' || g, $1, (${at})::date, 3, ${at} from generate_series($2::int, $3::int) g`,
        [owner.account_id, loads + 1, others],
      );
      // The conversation to the step's size, its latest 1 000 items copies, as the one-page history's.
      await grown.addThreadItems(sql, Math.max(0, others - 1_000 - (await grown.threadItems(sql))) + 1_000);
      // The counters the charges would have written, as the migration builds them from the ledger.
      await sql`delete from credit_usage_daily`;
      for (const backfill of backfills) await sql.unsafe(backfill);
      // And the counts, stored bytes and transcription minutes the bulk rows' writers would have kept.
      for (const statement of countsRebuild()) await sql.unsafe(statement);
      await settle(sql);
    });
    await pageReference.store.write(async (sql) => {
      await pageReference.addThreadItems(sql, 1_000);
      await settle(sql);
    });
    log(`  grew to ${step} ledger rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    rows.push(await measureStep(`${step}`));
  }
} finally {
  for (const history of histories) await history.store.close();
}

const [first, page] = rows;
const last = rows.at(-1);
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const table = [
  `| endpoint | ${rows.map((r) => r.step).join(' | ')} | growth from fresh | from one page | ${last.step} ÷ fresh, same window | ${last.step} ÷ one page, same window |`,
  `|---|${rows.map(() => '---').join('|')}|---|---|---|---|`,
  ...endpointNames.map(
    (name) =>
      `| ${name} | ${rows.map((r) => `${r.grown[name].p50} / ${r.grown[name].p90}`).join(' | ')} | ${ratio(last.grown[name].p50, first.grown[name].p50)} | ${ratio(last.grown[name].p50, page.grown[name].p50)} | ${ratio(last.grown[name].p50, last.fresh[name].p50)} | ${ratio(last.grown[name].p50, last.page[name].p50)} |`,
  ),
];
if (args.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
else
  process.stdout.write(
    `\np50 / p90 in ms (${DATABASE === 'postgres' ? 'PostgreSQL' : 'PGlite'}) of the grown history; growth of p50 to ${last.step} ledger rows from its own fresh and one-page steps, and against the two reference histories measured in the same window:\n\n${table.join('\n')}\n`,
  );
// A kept database leaves the admin connection open: end here rather than wait on it.
if (process.env.BENCH_SCALE_KEEP) process.exit(0);
