import { createRequire } from 'node:module';
import { log } from './log.mjs';
import { apiDir } from './servers.mjs';

/**
 * A scratch PostgreSQL database for one run, on the server of BENCH_DATABASE_URL (else
 * TEST_DATABASE_URL), or null when neither is set or the server cannot be reached.
 * @param {string} prefix the database is `<prefix>_<pid>`
 * @returns {Promise<{ url: string, drop: () => Promise<void> } | null>} its URL, and `drop` for the end of the run
 */
export async function scratchDatabase(prefix) {
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) return null;
  try {
    // The API's own driver: the bench package does not depend on it.
    const require = createRequire(import.meta.url);
    const postgres = require(require.resolve('postgres', { paths: [apiDir] }));
    const admin = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 3 });
    const name = `${prefix}_${process.pid}`;
    await admin.unsafe(`drop database if exists "${name}"`);
    await admin.unsafe(`create database "${name}"`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    return {
      url: target.toString(),
      drop: async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      },
    };
  } catch (err) {
    log(`PostgreSQL not reachable (${err.message}); skipping it.`);
    return null;
  }
}
