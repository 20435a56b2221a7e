// A rolling upgrade, as an operator with several instances meets it: the new release migrates the shared
// PostgreSQL database while instances of the previous release still serve on it, then both serve side by
// side until the old ones are replaced. This builds the previous release in a temporary git worktree, lets
// this checkout's admin CLI migrate a scratch database and make an account, starts one server of each
// release on it, and runs one customer's work across them: what one writes the other reads, continues or
// charges (a response chained across releases, an upload signed by one and stored through the other, a
// thread started on one and answered on the other), streamed and not. Each step must answer 2xx; at the end
// `admin usage reconcile` must find the usage counters equal to the credit ledger both releases wrote.
//
//   pnpm build && pnpm upgrade-check [--from <git ref>] [--keep]
//
// --from: the previous release (default: the commit before the newest migration was added, i.e. the code
// that migration must not break). --keep leaves the worktree (/tmp) and the database for a look afterwards.
// Needs PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL): PGlite serves one process, so it has no
// rolling upgrade. Request bodies are the contract's own examples, with the ids of this run put in.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { example, fromApi, operationOf, spec } from '../lib/contract.mjs';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { adminCli, apiDir, createAccount, startApiServer, stopProcess } from '../lib/servers.mjs';

const { values: args } = parseArgs({ options: { from: { type: 'string' }, keep: { type: 'boolean', default: false } } });
const repoRoot = resolve(apiDir, '../..');
// The contract's Ajv, through the API's dependency on it; its bundle, operations and example requests: lib/contract.mjs.
const { createContractAjv, formatErrors } = await fromApi('@persona-api/openapi/ajv');
const contract = createContractAjv(spec, { strict: false });

/**
 * Where this checkout's contract finds a JSON answer of `operation` at `status` wrong, or [] (also for an
 * answer that is not JSON). What a client built from the new contract would meet from either release during
 * the rollout.
 */
function contractProblems(operation, status, body) {
  if (typeof body !== 'object' || body === null) return [];
  const schema = (operation.responses[String(status)] ?? operation.responses.default)?.content?.['application/json']?.schema;
  if (!schema) return [];
  const validate = contract.validatorForSchema(schema);
  return validate(body) ? [] : formatErrors(validate.errors);
}

function git(...argv) {
  const result = spawnSync('git', ['-C', repoRoot, ...argv], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${argv.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** The commit before the newest migration file was added: the code that migration must leave working. */
function beforeNewestMigration() {
  const newest = readdirSync(join(apiDir, 'drizzle'))
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .at(-1);
  const added = git('log', '--diff-filter=A', '--format=%H', '-1', '--', `apps/api/drizzle/${newest}`);
  if (!added) throw new Error(`apps/api/drizzle/${newest} is not committed yet: commit it, or give --from`);
  return { ref: `${added}^`, why: `the commit before ${newest} was added` };
}

function run(command, argv, cwd) {
  const result = spawnSync(command, argv, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  if (result.status !== 0) throw new Error(`${command} ${argv.join(' ')} in ${cwd} failed:\n${(result.stdout + result.stderr).slice(-3000)}`);
}

/** The previous release checked out and built in a temporary worktree; its apps/api folder. */
function buildPrevious(ref) {
  const dir = mkdtempSync(join(tmpdir(), 'persona-upgrade-'));
  git('worktree', 'add', '--detach', dir, ref);
  const started = Date.now();
  // The lockfile's packages are in the store this checkout installed from: offline first.
  const offline = spawnSync('pnpm', ['install', '--frozen-lockfile', '--offline'], { cwd: dir, encoding: 'utf8' });
  if (offline.status !== 0) run('pnpm', ['install', '--frozen-lockfile'], dir);
  run('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@persona-api/api...', '--output-logs=errors-only'], dir);
  log(`built ${ref} in ${dir} (${Math.round((Date.now() - started) / 1000)} s)`);
  return { dir, api: join(dir, 'apps/api') };
}

const results = [];
/** The address both releases' links name; a step sends such a link to one server or the other itself. */
const PUBLIC_BASE = 'https://api.upgrade-check.example/api/v1';
/** A link of the public address, sent to `server`. */
const on = (server, link) => `${server.baseUrl}${new URL(link).pathname}${new URL(link).search}`;

/** Requests sent with the account's key (what GET /usage counts). */
let keyedRequests = 0;

/**
 * One step on one server, the operation its label names ("METHOD /template …"); records it, returns the
 * parsed body (or the text of a non-JSON answer).
 */
async function step(server, label, path, { key, body, raw, headers = {}, expect = [200, 201, 202, 204] } = {}) {
  const operation = operationOf(label);
  const method = operation.method.toUpperCase();
  if (key) keyedRequests += 1;
  const url = path.startsWith('http') ? path : `${server.baseUrl}/api/v1${path}`;
  const started = performance.now();
  const res = await fetch(url, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: raw ?? (body ? JSON.stringify(body) : undefined),
  });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  const problems = path.startsWith('http') ? [] : contractProblems(operation, res.status, parsed);
  const ok = expect.includes(res.status) && problems.length === 0;
  const detail = ok ? '' : problems.length > 0 ? `against this checkout's contract: ${problems.slice(0, 5).join('; ')}` : text.slice(0, 300);
  results.push({ server: server.label, label, status: res.status, ok, ms: performance.now() - started, detail });
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** A check of what one release read back from the other's write. */
function check(server, label, ok, detail = '') {
  results.push({ server: server.label, label, status: ok ? 'ok' : 'mismatch', ok, ms: 0, detail: ok ? '' : detail });
}

/**
 * An upload across releases: its URL signed by `signedOn`, its bytes PUT through `storedOn`, its record made
 * by `recordedOn` (`what`, e.g. "a transcript", tells the steps of a second upload apart). Returns the file record.
 */
async function uploadAcross({ signedOn, storedOn, recordedOn }, { key, workspaceId, name, type, text, what }) {
  const of = what ? ` (${what})` : '';
  const { body: grant } = await step(signedOn, `POST /files/upload-url${of}`, '/files/upload-url', {
    key,
    body: { file_name: name, file_type: type, file_size: Buffer.byteLength(text), workspace_id: workspaceId },
  });
  await step(storedOn, `PUT /uploads/{key} (${what ? `${what} ` : ''}signed by the other)`, on(storedOn, grant.upload_url), {
    raw: text,
    headers: grant.headers,
  });
  return (await step(recordedOn, `POST /files${of}`, '/files', { key, body: grant.next_step.body })).body;
}

/** A meeting schema read back by `server` after `after`: its usage_count and downloads must both be `counted`. */
async function schemaCountsRead(server, after, should, { key, schemaId, counted }) {
  const { body } = await step(server, `GET /meetings/schemas/{id} (${after})`, `/meetings/schemas/${schemaId}`, { key });
  check(server, `usage_count and downloads ${should}`, body.usage_count === counted && body.downloads === counted, JSON.stringify(body).slice(0, 300));
}

async function customerWork(old, next, { key, accountId, email, env }) {
  const both = [old, next];
  await step(next, 'GET /workspaces', '/workspaces', { key });

  const { body: ws } = await step(old, 'POST /workspaces', '/workspaces', { key, body: example('POST /workspaces') });
  const { body: wsRead } = await step(next, 'GET /workspaces/{id} (written by the other)', `/workspaces/${ws.id}`, { key });
  check(next, 'workspace read back', wsRead.name === ws.name, JSON.stringify(wsRead));

  const { body: project } = await step(next, 'POST /projects', '/projects', { key, body: example('POST /projects', { workspace_id: ws.id }) });
  await step(old, 'GET /projects/{id} (written by the other)', `/projects/${project.id}`, { key });
  await step(old, 'GET /projects?workspace_id', `/projects?workspace_id=${ws.id}`, { key });

  const { body: persona } = await step(old, 'POST /personas', '/personas', { key, body: example('POST /personas', { workspace_id: ws.id }) });
  await step(next, 'GET /personas/{id} (written by the other)', `/personas/${persona.id}`, { key });

  // A conversation continued on the other release: the chain and the charges of both.
  const responseBody = (overrides) =>
    example('POST /responses', {
      persona_id: 'persona_saas_cfo',
      store: true,
      stream: undefined,
      previous_response_id: undefined,
      conversation: undefined,
      ...overrides,
    });
  const { body: first } = await step(old, 'POST /responses', '/responses', { key, body: responseBody({}) });
  const { body: second } = await step(next, 'POST /responses previous_response_id (from the other)', '/responses', {
    key,
    body: responseBody({ previous_response_id: first.id, input: 'And at $15 a seat?' }),
  });
  const { body: secondRead } = await step(old, 'GET /responses/{id} (written by the other)', `/responses/${second.id}`, { key });
  check(old, 'chained response read back', secondRead.previous_response_id === first.id, JSON.stringify(secondRead).slice(0, 300));
  for (const server of both) {
    const streamed = await step(server, 'POST /responses stream', '/responses', {
      key,
      body: responseBody({ stream: true, previous_response_id: second.id }),
    });
    check(server, 'stream ends with response.completed', streamed.text.includes('event: response.completed'), streamed.text.slice(-300));
  }

  // A client's retry lands on the other release: the first answer again, charged once.
  const retried = responseBody({ input: 'Would a 60-day pilot change your answer?' });
  const idempotency = { 'idempotency-key': `upgrade-check-${process.pid}` };
  const { body: original } = await step(old, 'POST /responses Idempotency-Key', '/responses', { key, body: retried, headers: idempotency });
  const replay = await step(next, 'POST /responses Idempotency-Key again (retry on the other)', '/responses', {
    key,
    body: retried,
    headers: idempotency,
  });
  check(
    next,
    'the retry replays the first answer',
    replay.body.id === original.id && replay.headers.get('idempotent-replayed') === 'true',
    `${replay.body.id} / ${original.id}`,
  );

  const { body: conversation } = await step(next, 'POST /conversations', '/conversations', { key, body: example('POST /conversations') });
  const { body: turn } = await step(old, 'POST /responses conversation (from the other)', '/responses', {
    key,
    body: responseBody({ conversation: conversation.id }),
  });
  const { body: items } = await step(next, 'GET /conversations/{id}/items', `/conversations/${conversation.id}/items`, { key });
  const answer = turn.output?.find((item) => item.type === 'message')?.id;
  check(
    next,
    "the other release's answer is in the conversation",
    answer !== undefined && items.data?.some((item) => item.id === answer),
    JSON.stringify(items).slice(0, 300),
  );

  const { body: completion } = await step(next, 'POST /chat/completions', '/chat/completions', {
    key,
    body: example('POST /chat/completions', { persona_id: 'persona_saas_cfo', stream: undefined, store: true }),
  });
  await step(old, 'GET /chat/completions/{id} (written by the other)', `/chat/completions/${completion.id}`, { key });

  const { body: apps } = await step(old, 'GET /generation-apps', '/generation-apps', { key });
  const app = apps.data?.find((candidate) => candidate.input_fields?.every((field) => !field.required || field.type === 'text' || field.type === 'textarea'));
  if (app) {
    const input = Object.fromEntries(
      app.input_fields.filter((field) => field.required).map((field) => [field.name, 'A cold brew concentrate for remote workers']),
    );
    const { body: generation } = await step(old, 'POST /generations (project)', '/generations', {
      key,
      body: { app_id: app.id, input_data: input, project_id: project.id, persona_id: 'persona_saas_cfo' },
    });
    await step(next, 'GET /generations/{id} (written by the other)', `/generations/${generation.id}`, { key });
  } else check(old, 'a generation app with text inputs only', false, JSON.stringify(apps).slice(0, 300));

  // An upload signed by one release, its bytes stored through the other, the record read back by the first.
  const bytes = 'Rolling upgrade check: these bytes go up through one release and come back through the other.\n';
  const file = await uploadAcross(
    { signedOn: old, storedOn: next, recordedOn: next },
    { key, workspaceId: ws.id, name: 'notes.txt', type: 'text/plain', text: bytes },
  );
  const { body: files } = await step(old, 'GET /files?workspace_id (written by the other)', `/files?workspace_id=${ws.id}`, { key });
  if (!files.data?.some((listed) => listed.id === file.id))
    throw new Error(`the file the other release recorded is not listed: ${JSON.stringify(files).slice(0, 300)}`);
  for (const server of both) {
    const { text: downloaded } = await step(
      server,
      'GET /uploads/{key} (link from the list)',
      on(server, files.data.find((listed) => listed.id === file.id).url),
    );
    check(server, 'downloaded bytes equal the uploaded', downloaded === bytes, downloaded.slice(0, 200));
  }
  const { body: folder } = await step(next, 'POST /folders', '/folders', { key, body: example('POST /folders', { workspace_id: ws.id }) });
  await step(old, 'PATCH /files/{id} into a folder (made by the other)', `/files/${file.id}`, { key, body: { folder_id: folder.id } });
  const { body: folderRead } = await step(next, 'GET /folders/{id}', `/folders/${folder.id}`, { key });
  check(next, 'folder counts the file the other moved in', folderRead.file_count === 1, JSON.stringify(folderRead).slice(0, 300));

  // A call imported with a schema of the other release's: its result written by whichever release's worker
  // runs the job, then again by the previous release, its meeting deleted by it; the schema's usage_count (a
  // counter kept by a trigger on the results since 0028) read back by this checkout each time.
  const transcript =
    'WEBVTT\n\n00:00:00.000 --> 00:00:05.000\n<v Dana>Our budget for the rollout is forty thousand dollars.\n\n00:00:05.000 --> 00:00:09.000\n<v Sam>Who signs off on it?\n\n00:00:09.000 --> 00:00:13.000\n<v Dana>Our CFO does, after the pilot.\n';
  const transcriptFile = await uploadAcross(
    { signedOn: old, storedOn: next, recordedOn: old },
    { key, workspaceId: ws.id, name: 'call.vtt', type: 'text/vtt', text: transcript, what: 'a transcript' },
  );
  const { body: schema } = await step(old, 'POST /meetings/schemas', '/meetings/schemas', {
    key,
    body: example('POST /meetings/schemas', { workspace_id: ws.id, is_published: true }),
  });
  const { body: meeting } = await step(next, 'POST /meetings (a schema of the other)', '/meetings', {
    key,
    body: { workspace_id: ws.id, title: 'Pilot budget', transcript_file_id: transcriptFile.id, schema_ids: [schema.id] },
  });
  // The import's jobs (transcript, analysis, the schema's result) run on either release's worker.
  let scored = 0;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline && scored === 0; await delay(250)) {
    const res = await fetch(`${old.baseUrl}/api/v1/meetings/${meeting.id}/schema-results`, { headers: { authorization: `Bearer ${key}` } });
    keyedRequests += 1;
    scored = res.ok ? ((await res.json()).total ?? 0) : 0;
  }
  check(old, 'the imported call is scored within 60 s', scored === 1, `results: ${scored}`);
  await step(old, 'POST /meetings/{id}/schema-results (run again)', `/meetings/${meeting.id}/schema-results`, { key, body: { schema_id: schema.id } });
  await schemaCountsRead(next, 'results written by both', 'count the scored call once', { key, schemaId: schema.id, counted: 1 });
  await step(old, 'DELETE /meetings/{id}', `/meetings/${meeting.id}`, { key });
  await schemaCountsRead(next, 'meeting deleted by the other', 'drop with the meeting the other deleted', { key, schemaId: schema.id, counted: 0 });

  const { body: thread } = await step(old, 'POST /agent/threads', '/agent/threads', {
    key,
    body: example('POST /agent/threads', { workspace_id: ws.id, project_id: project.id, persona_id: 'persona_saas_cfo' }),
  });
  await step(next, 'POST /agent/threads/{id}/messages (thread of the other)', `/agent/threads/${thread.id}/messages`, {
    key,
    body: example('POST /agent/threads/{id}/messages'),
  });
  await step(old, 'GET /agent/threads/{id}/messages', `/agent/threads/${thread.id}/messages`, { key });

  const { body: group } = await step(old, 'POST /focus-groups', '/focus-groups', {
    key,
    body: example('POST /focus-groups', { persona_ids: ['persona_saas_cfo', persona.id], workspace_id: ws.id }),
  });
  await step(next, 'GET /focus-groups/{id} (written by the other)', `/focus-groups/${group.id}`, { key });

  // A brand voice deleted before it is learned gives its credits back: a refund, written by the previous release.
  const { body: voice } = await step(old, 'POST /brand-voices (from an upload)', '/brand-voices', {
    key,
    body: example('POST /brand-voices', { workspace_id: ws.id, sources: { file_ids: [file.id] } }),
  });
  await step(old, 'DELETE /brand-voices/{id} before it is learned (a refund)', `/brand-voices/${voice.id}`, { key });

  // The account owner's console, its session made by one release and used on the other.
  const invite = await adminCli(env, 'console', 'invite', accountId);
  const token = /#setup=([A-Za-z0-9_-]+)/.exec(invite.out)?.[1];
  if (!token) throw new Error(`no setup link from admin console invite:\n${invite.out}`);
  const password = `rolling-upgrade-${process.pid}`;
  await step(old, 'POST /console/setup', '/console/setup', { body: { token, password } });
  const signIn = await step(next, 'POST /console/session (password set on the other)', '/console/session', { body: { email, password } });
  const cookie = signIn.headers.get('set-cookie')?.split(';')[0] ?? '';
  const csrf = { cookie, 'x-csrf-token': signIn.body.csrf_token };
  await step(old, 'GET /console/usage (session of the other)', '/console/usage', { headers: { cookie } });
  const { body: made } = await step(old, 'POST /console/api-keys (session of the other)', '/console/api-keys', {
    headers: csrf,
    body: { name: 'made during the upgrade' },
  });
  const { body: consoleKeys } = await step(next, 'GET /console/api-keys', '/console/api-keys', { headers: { cookie } });
  check(
    next,
    'the key the other release made is listed',
    consoleKeys.data?.some((listed) => listed.id === made.api_key?.id),
    JSON.stringify(consoleKeys).slice(0, 300),
  );
  await step(next, 'GET /workspaces with the key the other release made', '/workspaces', { key: made.secret });

  // Each GET /usage first writes its own process's request counters: every request sent before the first is counted.
  const sent = keyedRequests;
  const usage = [];
  for (const server of both) usage.push((await step(server, 'GET /usage', '/usage', { key })).body);
  const counted = usage[1].api_requests?.total_requests ?? 0;
  check(next, 'the requests both releases served are counted', counted >= sent, `${counted} counted of ${sent} sent`);
  // Requests are counted as they are served; the credits both releases charged must read the same from either.
  const credits = usage.map((report) => JSON.stringify(report.credits));
  check(next, 'both releases report the same credits used', credits[0] === credits[1] && usage[0].credits?.used > 0, credits.join(' / '));
  for (const server of both)
    for (const list of [
      '/workspaces',
      '/personas',
      '/generations',
      '/agent/threads',
      '/meetings',
      '/news/stories',
      '/brand-voices',
      '/focus-groups',
      '/chat/completions',
    ])
      await step(server, `GET ${list}`, list, { key });
}

const pg = await scratchDatabase('persona_upgrade');
if (!pg) {
  log('pnpm upgrade-check needs PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  process.exit(1);
}
const from = args.from ? { ref: args.from, why: 'given' } : beforeNewestMigration();
const fromCommit = git('rev-parse', '--short', `${from.ref}^{commit}`);
log(
  `previous release: ${fromCommit} (${from.why}); this checkout: ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'apps/api') ? ' with changes' : ''}`,
);
const previous = buildPrevious(from.ref);
const servers = [];
let failed = true;
try {
  // This checkout's CLI migrates the database to its schema (the new release's migration step) and makes the
  // account. Both servers keep uploads on one local disk (DATA_DIR), as instances share a bucket.
  // Behind one load balancer both have one public address, which their upload and download links carry.
  const env = { DATABASE_URL: pg.url, DATA_DIR: join(previous.dir, '.upgrade-data'), PUBLIC_BASE_URL: PUBLIC_BASE };
  const { accountId, key, email } = await createAccount(env, 'upgrade');
  const old = { label: `previous (${fromCommit})`, ...(await startApiServer(env, { dir: previous.api })) };
  servers.push(old);
  const next = { label: 'this checkout', ...(await startApiServer(env)) };
  servers.push(next);
  // A step that failed leaves later ones without their ids: the first exception ends the work, as a failure.
  await customerWork(old, next, { key, accountId, email, env }).catch((err) => check(next, 'the work stopped', false, err.stack));
  const reconcile = await adminCli(env, 'usage', 'reconcile');
  check(next, 'admin usage reconcile: counters = ledger', reconcile.ok, reconcile.out.slice(-500));
  failed = results.some((result) => !result.ok);
} finally {
  for (const server of servers) await stopProcess(server.child);
  if (args.keep) log(`kept ${previous.dir} and ${pg.url}`);
  else {
    git('worktree', 'remove', '--force', previous.dir);
    rmSync(previous.dir, { recursive: true, force: true });
    await pg.drop();
  }
}

console.log(`\nRolling upgrade from ${fromCommit} to this checkout, one PostgreSQL database, both releases serving:\n`);
console.log('| server | step | status | ms |');
console.log('| --- | --- | ---: | ---: |');
for (const result of results)
  console.log(`| ${result.server} | ${result.label} | ${result.ok ? result.status : `**${result.status}**`} | ${result.ms ? result.ms.toFixed(1) : ''} |`);
const failures = results.filter((result) => !result.ok);
for (const failure of failures) console.log(`\nFAILED on ${failure.server}: ${failure.label} (${failure.status})\n${failure.detail}`);
console.log(`\n${results.length - failures.length} of ${results.length} steps passed.`);
process.exit(failed ? 1 : 0);
