import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { openDatabase, type DatabaseHandle } from './client.js';
import { seedCatalogs } from './seed.js';

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it.
 * A pid file in DATA_DIR keeps the server and the admin CLI from running on it at the same time.
 */
export function lockDataDir(dataDir: string, holder: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, `${process.pid} ${holder}\n`);
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const [pid, owner] = readFileSync(lockFile, 'utf8').trim().split(' ');
      // Our own pid is a predecessor's: a container's server restarts as the same pid (often 1).
      if (pid && Number(pid) !== process.pid && isAlive(Number(pid))) {
        throw new Error(
          `The database in ${dataDir} is in use by process ${pid} (${owner ?? 'unknown'}). PGlite allows one process at a time: stop it first, or use DATABASE_URL with PostgreSQL.`,
        );
      }
      rmSync(lockFile, { force: true }); // Left behind by a process that died.
    }
  }
  throw new Error(`Could not lock ${dataDir}.`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Opens the configured database (PostgreSQL with DATABASE_URL, else PGlite in DATA_DIR), migrated and seeded. */
export async function openConfiguredDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_PREPARED_STATEMENTS' | 'PGLITE_WASM_TIER_UP'>,
  holder: string,
): Promise<DatabaseHandle> {
  let database: DatabaseHandle;
  if (config.DATABASE_URL) {
    database = await openDatabase({
      driver: 'postgres',
      url: config.DATABASE_URL,
      poolSize: config.DATABASE_POOL_SIZE,
      preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    });
  } else {
    const dataDir = resolve(config.DATA_DIR);
    const unlock = lockDataDir(dataDir, holder);
    try {
      const pglite = await openDatabase({ driver: 'pglite', dataDir: join(dataDir, 'pglite'), wasmTierUp: config.PGLITE_WASM_TIER_UP });
      database = {
        ...pglite,
        close: async () => {
          try {
            await pglite.close();
          } finally {
            unlock();
          }
        },
      };
    } catch (err) {
      unlock();
      throw err;
    }
  }
  try {
    await database.migrate();
    await seedCatalogs(database.db);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}
