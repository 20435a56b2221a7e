import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Every migration is linted by squawk (a PostgreSQL migration linter; rules in apps/api/.squawk.toml) for
// what breaks an instance of the previous release still serving during a rolling upgrade, or locks a
// large table. A new migration must be clean. One that must break a rule says so in a
// `-- squawk-ignore <rule>` comment, and the README's "Upgrades" says what it means for operators.
// What the migrations before this lint (2026-11-30) break is listed below, with what it does.

const apiDir = join(import.meta.dirname, '../..');
const squawk = join(apiDir, 'node_modules/.bin/squawk');
const scratch = mkdtempSync(join(tmpdir(), 'migrations-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Finding {
  file: string;
  rule_name: string;
}

/** squawk's findings for `paths`, as `file: rules` with each rule once, sorted. */
async function lint(paths: string[]): Promise<Record<string, string[]>> {
  // squawk exits 1 when it finds something; its JSON report is on stdout either way.
  const { stdout } = await promisify(execFile)(squawk, ['-c', '.squawk.toml', '--reporter', 'json', ...paths], { cwd: apiDir }).catch(
    (error: { stdout?: string; code?: number }) => {
      if (error.code === 1 && error.stdout) return { stdout: error.stdout };
      throw error;
    },
  );
  const byFile: Record<string, string[]> = {};
  for (const finding of JSON.parse(stdout) as Finding[]) {
    const file = finding.file.split('/').at(-1) ?? finding.file;
    byFile[file] = [...new Set([...(byFile[file] ?? []), finding.rule_name])].sort();
  }
  return byFile;
}

describe('migrations lint (squawk)', () => {
  it('finds nothing in any migration but those known from before the lint', async () => {
    const migrations = readdirSync(join(apiDir, 'drizzle')).filter((name) => name.endsWith('.sql'));
    expect(migrations.length).toBeGreaterThan(25);
    expect(await lint(migrations.map((name) => `drizzle/${name}`))).toEqual({
      // Early schema: foreign keys and indexes added to tables that were then new and small.
      '0002_files_folders_uploads.sql': ['adding-foreign-key-constraint', 'constraint-missing-not-valid', 'require-concurrent-index-creation'],
      '0005_wave3_resources.sql': [
        'adding-foreign-key-constraint',
        'adding-required-field',
        'ban-drop-not-null',
        'constraint-missing-not-valid',
        'require-concurrent-index-creation',
      ],
      // `api_usage_daily.account_id` made required: an older instance's request counters fail to write
      // (logged; that batch of counts is lost) until it is replaced (README, Upgrades).
      '0025_usage_by_account_and_console_keys.sql': ['adding-not-nullable-field'],
      // `credit_usage_daily.account_id` required: an older instance's refunds fail until it is replaced.
      '0026_account_usage_counters.sql': ['adding-required-field'],
    });
  });

  it('refuses what would break the previous release or lock a large table, unless a comment says it is meant', async () => {
    const write = (name: string, text: string) => {
      writeFileSync(join(scratch, name), text);
      return join(scratch, name);
    };
    const findings = await lint([
      write('required.sql', 'ALTER TABLE "files" ADD COLUMN "owner" text NOT NULL;'),
      write('dropped.sql', 'ALTER TABLE "files" DROP COLUMN "url";'),
      write('renamed.sql', 'ALTER TABLE "files" RENAME COLUMN "url" TO "link";'),
      write('index.sql', 'CREATE INDEX "files_name_idx" ON "files" ("name");'),
      write('meant.sql', '-- squawk-ignore adding-required-field\nALTER TABLE "files" ADD COLUMN "owner" text NOT NULL;'),
      write(
        'additive.sql',
        'ALTER TABLE "files" ADD COLUMN "owner" text;\nCREATE TABLE "notes" ("id" text PRIMARY KEY, "body" text NOT NULL);\nCREATE INDEX "notes_body_idx" ON "notes" ("body");',
      ),
    ]);
    expect(findings).toEqual({
      'required.sql': ['adding-required-field'],
      'dropped.sql': ['ban-drop-column'],
      'renamed.sql': ['renaming-column'],
      'index.sql': ['require-concurrent-index-creation'],
    });
  });
});
