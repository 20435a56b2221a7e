import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { seedCatalogs } from '../../src/db/seed.js';
import { finishContractReport, startContractReport } from '../support/contract-report.js';
import { setUpOnce } from './once.js';
import { templateFingerprint } from './template.js';

/**
 * Migrates and seeds one PGlite database and dumps it; every test file loads the dump (about a second)
 * instead of initialising PGlite and migrating again. The dump is cached by migration fingerprint.
 */
export default async function setup(project: TestProject) {
  const { value, release } = await setUpOnce('pglite', build, ({ reportDir }) => {
    finishContractReport('pglite', reportDir);
  });
  project.provide('database', { driver: 'pglite', templateFile: value.templateFile });
  project.provide('contractReportDir', value.reportDir);
  return release;
}

async function build() {
  const cacheDir = join(import.meta.dirname, '../../node_modules/.cache/persona-api-test');
  mkdirSync(cacheDir, { recursive: true });
  const templateFile = join(cacheDir, `pglite-template-${templateFingerprint()}.tar`);
  if (!existsSync(templateFile)) {
    const handle = await openDatabase({ driver: 'pglite' });
    await handle.migrate();
    await seedCatalogs(handle.db);
    const client = (handle.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client;
    const dump = await client.dumpDataDir('none');
    await handle.close();
    const partial = `${templateFile}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, templateFile);
  }
  return { templateFile, reportDir: startContractReport('pglite') };
}
