// The hand-written peer (issue 17): Fastify and postgres.js doing by hand what the API's list call does
// in the database — the bearer key looked up by its SHA-256 (joined to its account and tier, revoked keys
// refused) and the caller's workspaces with their three counts — and answering the same JSON, built by
// hand. No rate limit, no contract validation, no key cache: what "the same two queries" cost written
// plainly. Started by run.mjs as a child on the API's database after the API has filled it.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { apiDir } from '../lib/servers.mjs';

const [databaseUrl, port, driver = 'postgres'] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const KEY_QUERY = `
    select k.id, k.account_id, k.user_id, a.tier_id, t.requests_per_minute
    from api_keys k join accounts a on a.id = k.account_id join tiers t on t.id = a.tier_id
    where k.key_hash = $1 and k.revoked_at is null limit 1`;
const WORKSPACES_QUERY = `
    select w.*, m.role,
      (select count(*)::int from workspace_members where workspace_id = w.id) as member_count,
      (select count(*)::int from projects where workspace_id = w.id) as project_count,
      (select count(*)::int from agent_threads where workspace_id = w.id) as thread_count
    from workspaces w join workspace_members m on m.workspace_id = w.id and m.user_id = $1
    order by w.created_at desc, w.id desc limit $2`;
// The same two statements, prepared, through either driver (DECISIONS.md, Dependency faults: postgres.js
// patched or node-postgres, decided by this comparison). node-postgres is pg-boss's own copy.
let run;
let end;
if (driver === 'pg') {
  const pg = createRequire(require.resolve('pg-boss/package.json', { paths: [apiDir] }))('pg');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  run = async (name, text, values) => (await pool.query({ name, text, values })).rows;
  end = () => pool.end();
} else {
  const postgres = require(require.resolve('postgres', { paths: [apiDir] }));
  const sql = postgres(databaseUrl, { max: 10, onnotice: () => {} });
  run = (_name, text, values) => sql.unsafe(text, values, { prepare: true });
  end = () => sql.end();
}

const iso = (value) => new Date(value).toISOString();
const app = Fastify({ logger: false });
app.get('/api/v1/workspaces', async (request, reply) => {
  const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
  if (!match) return reply.code(401).send({ error: { message: 'Invalid API key.', type: 'authentication_error', code: 'invalid_api_key', param: null } });
  const digest = createHash('sha256').update(match[1]).digest('hex');
  const [key] = await run('peer_key', KEY_QUERY, [digest]);
  if (!key) return reply.code(401).send({ error: { message: 'Invalid API key.', type: 'authentication_error', code: 'invalid_api_key', param: null } });
  const limit = Math.min(100, Number(request.query.limit ?? 20));
  const rows = await run('peer_workspaces', WORKSPACES_QUERY, [key.user_id, limit + 1]);
  const page = rows.slice(0, limit);
  return {
    object: 'list',
    data: page.map((row) => ({
      id: row.id,
      object: 'workspace',
      name: row.name,
      image: row.image,
      is_owner: row.owner_user_id === key.user_id,
      member_count: row.member_count,
      project_count: row.project_count,
      thread_count: row.thread_count,
      budget_alert: row.budget_alert,
      usage_limit: row.usage_limit,
      billing_email: row.billing_email,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    })),
    has_more: rows.length > limit,
  };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('listening\n');
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => end())
      .then(() => process.exit(0)),
);
