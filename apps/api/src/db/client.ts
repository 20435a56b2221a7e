import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { observedPglite, observedPostgres } from '../observability/db.js';
import { buildOnlineIndexes } from './online-indexes.js';
import { initdbTemplateFor } from './pglite-template.js';
import { compiledWithoutTierUp } from './wasm-tiering.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
/** Both drivers give the same query builder; handlers only ever see this type. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Something queries can run on: the database or an open transaction. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  driver: 'pglite' | 'postgres';
  /** What the job queue (pg-boss) connects through: the same PGlite instance, or its own pool on the same URL. */
  connection: { driver: 'pglite'; client: PGlite } | { driver: 'postgres'; url: string };
  /** Applies the versioned migrations in drizzle/ that have not run yet. */
  migrate(): Promise<void>;
  /**
   * Runs `work` while no other instance runs startup work on this database (PostgreSQL: a session-level
   * advisory lock; PGlite: one process owns the data directory). For first-start work such as the bootstrap
   * account, which two instances starting together must not both do.
   */
  exclusively<T>(work: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /**
   * Subscribes to a PostgreSQL notification channel (`pg_notify`), on both drivers: what one instance (or
   * the admin CLI) changes, every instance hears within milliseconds. Returns the unsubscribe.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** apps/api/drizzle, from src/db (tsx, vitest) and dist/db (node) alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

// Any constant works; it only has to be the same for every server instance.
const MIGRATION_LOCK_ID = 7_310_201;
const STARTUP_LOCK_ID = 7_310_202;

/**
 * Holds a session-level advisory lock on its own connection while `work` runs. A waiting instance polls with
 * pg_try_advisory_lock instead of blocking in pg_advisory_lock: a statement blocked there is a transaction that
 * CREATE INDEX CONCURRENTLY (run under the migration lock) must wait for, and the two deadlock.
 */
async function withAdvisoryLock<T>(url: string, lockId: number, work: (lockDb: ReturnType<typeof drizzlePostgres>) => Promise<T>): Promise<T> {
  const lockClient = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const lockDb = drizzlePostgres({ client: lockClient });
    for (;;) {
      const [row] = await lockClient<{ locked: boolean }[]>`select pg_try_advisory_lock(${lockId}) as locked`;
      if (row?.locked) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      return await work(lockDb);
    } finally {
      await lockDb.execute(sql`select pg_advisory_unlock(${lockId})`);
    }
  } finally {
    await lockClient.end();
  }
}

export type OpenDatabaseOptions =
  | { driver: 'postgres'; url: string; poolSize?: number; preparedStatements?: boolean }
  | {
      driver: 'pglite';
      dataDir?: string;
      loadDataDir?: Blob;
      /** Let V8 optimize PGlite's hot WebAssembly functions (PGLITE_WASM_TIER_UP); off by default, see db/wasm-tiering.ts. */
      wasmTierUp?: boolean;
    };

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.driver === 'postgres') return openPostgres(options.url, options.poolSize ?? 10, options.preparedStatements ?? true);
  return openPglite(options.dataDir, options.loadDataDir, options.wasmTierUp ?? false);
}

async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined, wasmTierUp: boolean): Promise<DatabaseHandle> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // A new directory is unpacked from initdb's output kept by the build, when there is one (db/pglite-template.ts).
  const unpackFrom = loadDataDir ?? (dataDir ? initdbTemplateFor(dataDir) : undefined);
  const create = () => PGlite.create(dataDir, unpackFrom ? { loadDataDir: unpackFrom } : {});
  const client = await (wasmTierUp ? create() : compiledWithoutTierUp(create));
  const db = drizzlePglite({ client: observedPglite(client), schema });
  return {
    db: db as unknown as Database,
    driver: 'pglite',
    connection: { driver: 'pglite', client },
    migrate: async () => {
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
      await buildOnlineIndexes(db, false);
    },
    exclusively: (work) => work(),
    listen: async (channel, onNotify) => {
      const unlisten = await client.listen(channel, onNotify);
      return () => unlisten();
    },
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

/**
 * The client Drizzle is given, with every statement prepared (named and kept per connection by
 * postgres.js, keyed by its text). Drizzle asks postgres.js not to prepare any statement it did not
 * `.prepare()` itself; unprepared, a statement with parameters costs two round trips (Parse+Describe,
 * then Bind+Execute) and a fresh parse and plan every time, which is what made a list call cost twice a
 * hand-written one (bench/README.md). Transactions and savepoints hand Drizzle a client of their own,
 * wrapped the same way. postgres.js re-prepares a statement whose plan a migration invalidated.
 */
function preparingClient<T extends postgres.Sql>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: unknown[], options?: Record<string, unknown>) =>
          target.unsafe(query, params as postgres.ParameterOrJSON<never>[], { ...options, prepare: true });
      }
      if (property === 'begin' || property === 'savepoint') {
        const original = Reflect.get(target, property, target) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) =>
          original.apply(
            target,
            args.map((arg) => (typeof arg === 'function' ? (tx: postgres.Sql) => (arg as (tx: postgres.Sql) => unknown)(preparingClient(tx)) : arg)),
          );
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * How long a request may wait on an unreachable PostgreSQL (DECISIONS.md, Dependency faults): a refused or
 * dropped connection fails at once, a connect that hangs after 2 s, a statement after 15 s; reconnects are
 * tried again within 0.5 s (postgres.js's default backoff grows to 20 s, so recovery took seconds).
 */
export const POSTGRES_FAULT_BOUNDS = { connectTimeoutSeconds: 2, maxBackoffSeconds: 0.5, statementTimeoutMs: 15_000 };

/**
 * Planner settings of every connection of the server (and of the plan test, which explains its statements).
 * jit off: an OLTP server's short queries never repay a JIT compile, which took 0.4–1.4 s on a list
 * (wave3-facts.md). random_page_cost 1.1 (SSD/cached data, the usual production setting): with the default 4
 * the planner, sizing each workspace of a lateral "all my workspaces" page by the average workspace, flips
 * between walking (workspace_id, created_at, id) to the page and a bitmap scan and sort of the whole workspace.
 */
export const POSTGRES_PLANNER_SETTINGS = { jit: 'off', random_page_cost: '1.1' } as const;

/** The postgres.js options of the server's pool (also the driver stress's, bench/driver-faults). */
export function postgresOptions(poolSize: number) {
  return {
    max: poolSize,
    onnotice: () => {},
    connect_timeout: POSTGRES_FAULT_BOUNDS.connectTimeoutSeconds,
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, POSTGRES_FAULT_BOUNDS.maxBackoffSeconds),
    connection: { statement_timeout: POSTGRES_FAULT_BOUNDS.statementTimeoutMs, ...POSTGRES_PLANNER_SETTINGS },
  } satisfies postgres.Options<Record<string, postgres.PostgresType>>;
}

async function openPostgres(url: string, poolSize: number, preparedStatements: boolean): Promise<DatabaseHandle> {
  const client = postgres(url, postgresOptions(poolSize));
  const db = drizzlePostgres({
    client: observedPostgres(preparedStatements ? preparingClient(client) : client, poolSize),
    schema,
  });
  return {
    db: db as unknown as Database,
    driver: 'postgres',
    connection: { driver: 'postgres', url },
    // One connection, so the session-level advisory lock covers the whole migration: several instances
    // starting at once apply each migration exactly once.
    migrate: () =>
      withAdvisoryLock(url, MIGRATION_LOCK_ID, async (lockDb) => {
        await migratePostgres(lockDb, { migrationsFolder: MIGRATIONS_FOLDER });
        await buildOnlineIndexes(lockDb, true);
      }),
    exclusively: (work) => withAdvisoryLock(url, STARTUP_LOCK_ID, () => work()),
    listen: async (channel, onNotify) => {
      // postgres.js keeps one dedicated connection for LISTEN and re-subscribes after a reconnect.
      const { unlisten } = await client.listen(channel, (payload) => onNotify(payload));
      return unlisten;
    },
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 5 }),
  };
}
