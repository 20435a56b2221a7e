import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';

export const driverName = () => inject('database').driver;

/** A fresh, migrated and seeded database of the suite's driver, for one test file (or one test). */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const provided = inject('database');
  if (provided.driver === 'pglite') {
    const dump = new Blob([readFileSync(provided.templateFile)]);
    return openDatabase({ driver: 'pglite', loadDataDir: dump });
  }
  const name = `persona_test_run_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${provided.template}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(provided.adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ driver: 'postgres', url: url.toString(), poolSize: 4 });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const dropper = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** A created-empty PostgreSQL database (no migrations: a server started on it applies them) and its drop. */
export interface EmptyDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * An empty database named `persona_test_run_<pid>_<label>` on the suite's PostgreSQL server, for tests that
 * start real servers on it; null when the suite runs on PGlite. The global setup drops it if the run dies.
 */
export async function emptyPostgresDatabase(label: string): Promise<EmptyDatabase | null> {
  const provided = inject('database');
  if (provided.driver !== 'postgres') return null;
  const name = `persona_test_run_${process.pid}_${label}`;
  const onAdmin = async (statement: string) => {
    const admin = postgres(provided.adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(statement);
    } finally {
      await admin.end();
    }
  };
  await onAdmin(`drop database if exists "${name}" with (force)`);
  await onAdmin(`create database "${name}"`);
  const url = new URL(provided.adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onAdmin(`drop database if exists "${name}" with (force)`) };
}
