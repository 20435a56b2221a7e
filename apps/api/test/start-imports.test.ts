import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './support/processes.js';

// What a start loads (bench/README.md, Cold start): a dependency that only some requests, jobs or settings
// need is loaded at its first use (lib/first-use.ts, or a dynamic import), so a start does not pay its time
// and memory. Read in a process of its own (test/fixtures/packages-at-start.ts), from the module loader's
// own resolutions.

const dataDir = mkdtempSync(join(tmpdir(), 'start-imports-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function packagesAtStart(): Promise<string[]> {
  const child = run(join(import.meta.dirname, 'fixtures/packages-at-start.ts'), [dataDir], {});
  expect(await child.exited, child.output()).toBe(0);
  const stdout = child.stdout();
  const line = /^packages (.*)$/m.exec(stdout)?.[1];
  expect(line, stdout).toBeDefined();
  return JSON.parse(line ?? '[]') as string[];
}

/** Only some requests, jobs or settings need these. */
const ON_FIRST_USE = [
  'feedsmith', // news jobs
  'franc-min', // news jobs
  'marked', // generations of HTML apps
  'sanitize-html', // generations of HTML apps
  'tesseract.js', // video analyses
  'sharp', // image thumbnails
  '@modelcontextprotocol/sdk', // the first /mcp request
  '@aws-sdk/client-s3', // STORAGE_DRIVER=s3
  '@aws-sdk/lib-storage', // STORAGE_DRIVER=s3
  'ioredis', // REDIS_URL
];

describe('a start on PGlite', () => {
  it('loads the news parsers only for a new database’s bundled news, and the rest of what waits for first use never', { timeout: 120_000 }, async () => {
    const first = await packagesAtStart();
    // The loader's resolutions are seen, lazy ones included: the bundled news of a new database parses feeds.
    expect(first).toEqual(expect.arrayContaining(['fastify', '@electric-sql/pglite', 'pg-boss', 'feedsmith', 'franc-min']));
    const restart = await packagesAtStart();
    expect(restart).toEqual(expect.arrayContaining(['fastify', '@electric-sql/pglite', 'pg-boss']));
    expect(restart.filter((name) => ON_FIRST_USE.includes(name))).toEqual([]);
    expect(first.filter((name) => ON_FIRST_USE.includes(name) && name !== 'feedsmith' && name !== 'franc-min')).toEqual([]);
  });
});
