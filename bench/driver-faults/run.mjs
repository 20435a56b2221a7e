// The API's PostgreSQL driver (postgres.js 3.4.9 with patches/postgres@3.4.9.patch) under repeated connection
// cuts: callers run transactions of three statements, transactions of one and single statements through a TCP
// proxy that resets every connection every few hundred milliseconds, with the driver options the server uses
// (db/client.ts). Every call must settle; a call still waiting 5 s after it started is reported as stuck. This
// is the stress that found transactions left waiting forever (apps/api/test/db/driver-faults.test.ts holds the
// two moments it came down to, and a bounded slice; DECISIONS.md, "postgres.js 3.4.9 is patched"). Every write
// whose commit was acknowledged must be in the table at the end, or it is counted as lost.
//
//   pnpm build && pnpm bench:driver-faults [--cuts 250] [--callers 20] [--pool 10]
//
// Needs BENCH_DATABASE_URL (else TEST_DATABASE_URL): a scratch database is created and dropped. Run it beside
// a CPU hog (`yes > /dev/null &`) to see what a loaded machine does; a run of 250 cuts takes about 2.5 minutes.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { log } from '../lib/log.mjs';
import { scratchDatabase } from '../lib/postgres.mjs';
import { apiDir } from '../lib/servers.mjs';

const { values: args } = parseArgs({
  options: {
    cuts: { type: 'string', default: '250' },
    callers: { type: 'string', default: '20' },
    pool: { type: 'string', default: '10' },
  },
});
const cuts = Number(args.cuts);
const callers = Number(args.callers);

const require = createRequire(import.meta.url);
const postgres = require(require.resolve('postgres', { paths: [apiDir] }));
const scratch = await scratchDatabase('bench_driver_faults');
if (!scratch) {
  log('bench:driver-faults needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  process.exit(1);
}
const target = new URL(scratch.url);

// The fault proxy of the API's own tests (TypeScript whose types Node strips).
const { startFaultProxy, throughProxy } = await import(pathToFileURL(join(apiDir, 'test/support/fault-proxy.ts')).href);
const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });

// With the server's own options (db/client.ts; built: `pnpm build` first), every statement prepared.
const { postgresOptions } = await import(pathToFileURL(join(apiDir, 'dist/db/client.js')).href);
const sql = postgres(throughProxy(scratch.url, proxy), { ...postgresOptions(Number(args.pool)), prepare: true });
await sql`create table driver_faults (id serial primary key, note text)`;

const pending = new Map();
const counts = { settled: 0, failed: 0, unreserved: 0, stuck: 0, misdelivered: 0, lost: 0 };
/** Notes of writes whose commit was acknowledged: each must be in the table at the end. */
const acknowledged = [];
let next = 0;
let stop = false;
const track = async (kind, work) => {
  const call = next++;
  pending.set(call, { kind, since: Date.now() });
  try {
    await work(call);
    counts.settled++;
  } catch (err) {
    counts.failed++;
    // A transaction the driver failed to reserve a connection for (porsager/postgres#1189), not a cut.
    if (err instanceof TypeError || err?.code === 'UNSAFE_TRANSACTION') counts.unreserved++;
  } finally {
    pending.delete(call);
  }
};
const caller = async (id) => {
  while (!stop) {
    const kind = ['transaction of three', 'transaction of one', 'statement'][id % 3];
    await track(kind, async (call) => {
      if (id % 3 === 0) {
        await sql.begin(async (tx) => {
          await tx`insert into driver_faults (note) values (${`caller ${id}`})`;
          const [row] = await tx`select ${call}::int as call`;
          if (row.call !== call) counts.misdelivered++;
          await tx`insert into driver_faults (note) values (${'second'})`;
        });
      } else if (id % 3 === 1) {
        await sql.begin((tx) => tx`insert into driver_faults (note) values (${`one ${call}`}) returning id`);
        acknowledged.push(`one ${call}`);
      } else if (call % 2 === 0) {
        await sql`insert into driver_faults (note) values (${`single ${call}`})`;
        acknowledged.push(`single ${call}`);
      } else {
        const [row] = await sql`select ${call}::int as call, pg_sleep(0.001)`;
        if (row.call !== call) counts.misdelivered++;
      }
    });
  }
};
const stuckSeen = new Set();
const watchdog = setInterval(() => {
  for (const [call, { kind, since }] of pending) {
    if (Date.now() - since > 5_000 && !stuckSeen.has(call)) {
      stuckSeen.add(call);
      counts.stuck++;
      log(`stuck: a ${kind} waiting for ${Date.now() - since} ms`);
    }
  }
}, 1_000);

const started = Date.now();
const running = Array.from({ length: callers }, (_, id) => caller(id));
for (let round = 0; round < cuts; round++) {
  await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 200));
  proxy.cut();
  await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400));
  proxy.restore();
}
// Once the database stays up, every call settles within the bounds.
stop = true;
await Promise.race([Promise.all(running), new Promise((resolve) => setTimeout(resolve, 7_000))]);
clearInterval(watchdog);
const still = [...pending.values()].map(({ kind, since }) => `${kind} (${Date.now() - since} ms)`);
// Read past the proxy, once every connection of the pool has ended: a write acknowledged inside a transaction
// nobody committed is gone with its connection.
await sql.end({ timeout: 1 }).catch(() => {});
const reader = postgres(scratch.url, { max: 1, onnotice: () => {} });
const present = new Set((await reader`select note from driver_faults`).map((row) => row.note));
await reader.end();
counts.lost = acknowledged.filter((note) => !present.has(note)).length;
log(
  `${cuts} cuts, ${callers} callers, ${Math.round((Date.now() - started) / 1000)} s: ${counts.settled} settled, ${counts.failed} failed (${counts.unreserved} of them transactions left unreserved), ` +
    `${counts.stuck} stuck past 5 s, ${counts.misdelivered} answers misdelivered, ${counts.lost} of ${acknowledged.length} acknowledged writes lost; ` +
    `still waiting at the end: ${still.length ? still.join(', ') : 'none'}`,
);
await proxy.close();
await scratch.drop();
process.exit(counts.stuck + counts.misdelivered + counts.lost + counts.unreserved + still.length > 0 ? 1 : 0);
