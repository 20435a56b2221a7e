import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { seedCatalogs } from '../../src/db/seed.js';
import { finishContractReport, startContractReport } from '../support/contract-report.js';
import { setUpOnce } from './once.js';
import { templateFingerprint } from './template.js';

/**
 * Migrates and seeds a template database on the server of TEST_DATABASE_URL; every test file gets
 * `CREATE DATABASE … TEMPLATE` of it (tens of milliseconds) and drops it afterwards.
 */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const { value, release } = await setUpOnce(
    'postgres',
    () => build(adminUrl),
    ({ reportDir }) => {
      finishContractReport('postgres', reportDir);
    },
  );
  project.provide('database', { driver: 'postgres', adminUrl, template: value.template });
  project.provide('contractReportDir', value.reportDir);
  return release;
}

async function build(adminUrl: string) {
  const template = `persona_test_template_${templateFingerprint()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${template}`;
    if (!exists) {
      const building = `${template}_build_${process.pid}`;
      await admin.unsafe(`drop database if exists "${building}"`);
      await admin.unsafe(`create database "${building}"`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const handle = await openDatabase({ driver: 'postgres', url: url.toString(), poolSize: 2 });
      await handle.migrate();
      await seedCatalogs(handle.db);
      await handle.close();
      // Renamed only once complete, so an interrupted build is never used as a template.
      await admin.unsafe(`alter database "${building}" rename to "${template}"`);
    }
    // Databases left behind by runs that died (their process is gone), and templates of old migrations.
    const leftovers = await admin<{ datname: string }[]>`select datname from pg_database where datname like 'persona_test_%'`;
    for (const { datname } of leftovers) {
      const pid = /^persona_test_run_(\d+)_/.exec(datname)?.[1];
      // Another checkout's template (other migrations) may be in use by its own run on this server: only CI,
      // alone on its machine, drops templates of other migrations.
      const otherTemplate = datname.startsWith('persona_test_template_') && datname !== template;
      const stale = pid ? !isAlive(Number(pid)) : otherTemplate && process.env.CI === 'true';
      if (stale) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
    }
  } finally {
    await admin.end();
  }
  return { template, reportDir: startContractReport('postgres') };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
