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
