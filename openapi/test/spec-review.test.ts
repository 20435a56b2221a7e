// `pnpm spec:review [ref]` on a throwaway git repository holding a copy of the real contract: `main` is the
// contract as it is, each test edits the working tree like a pull request would and reads the report.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { PACKAGE_DIR } from './support/bundle.js';

const SCRIPT = join(PACKAGE_DIR, 'scripts', 'spec-review.mjs');
// Each review bundles twice and runs both linters on the whole contract; the machine is shared.
const REVIEW_TIMEOUT = 240_000;

let repo: string;
let specDir: string;
let reportFile: string;

const git = (...args: string[]) => {
  const result = spawnSync('git', ['-C', repo, '-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};

/** Edits one YAML file of the copied contract. */
function edit(file: string, change: (doc: any) => void) {
  const path = join(specDir, file);
  const doc = parse(readFileSync(path, 'utf8'));
  change(doc);
  writeFileSync(path, stringify(doc));
}

function review(ref = 'main') {
  const result = spawnSync(process.execPath, [SCRIPT, ref, '--spec-dir', specDir, '--out', reportFile, '--docs', join(repo, 'no-docs', 'index.html')], {
    encoding: 'utf8',
  });
  const report = result.status === 2 ? '' : readFileSync(reportFile, 'utf8');
  return { status: result.status, report, output: `${result.stdout}${result.stderr}` };
}

/** The three breaks of the issue: a required request field, a response field removed, a request enum value removed. */
function breakClients() {
  edit('components/schemas/WorkspaceCreateRequest.yaml', (schema) => {
    schema.required.push('region');
    schema.properties.region = { type: 'string', enum: ['eu', 'us'], description: 'Where the workspace data lives.' };
  });
  edit('paths/workspaces.yaml', (pathItem) => {
    pathItem.post.requestBody.content['application/json'].examples.agency.value.region = 'eu';
  });
  edit('components/schemas/WorkspaceSummary.yaml', (schema) => {
    delete schema.properties.thread_count;
    schema.required = schema.required.filter((name: string) => name !== 'thread_count');
  });
  edit('components/schemas/WorkspaceType.yaml', (schema) => {
    schema.enum = schema.enum.filter((value: string) => value !== 'starter');
  });
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'spec-review-test-'));
  specDir = join(repo, 'openapi');
  reportFile = join(repo, 'review.md');
  mkdirSync(specDir);
  for (const part of ['openapi.yaml', 'redocly.yaml', '.redocly.lint-ignore.yaml', 'plugins', 'paths', 'components'])
    cpSync(join(PACKAGE_DIR, part), join(specDir, part), { recursive: true });
  mkdirSync(join(repo, '.changeset'));
  cpSync(join(PACKAGE_DIR, '..', '.changeset', 'config.json'), join(repo, '.changeset', 'config.json'));
  writeFileSync(join(repo, '.gitignore'), 'review.md\n');
  git('init', '--quiet', '--initial-branch=main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'the contract');
});

beforeEach(() => {
  git('checkout', '--quiet', '--', '.');
  git('clean', '--quiet', '-fd');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('spec:review', () => {
  it(
    'passes an optional request field and reports it, with the types that change',
    () => {
      edit('components/schemas/WorkspaceCreateRequest.yaml', (schema) => {
        schema.properties.description = { type: 'string', maxLength: 500, description: 'What the workspace is for.' };
      });
      const { status, report, output } = review();
      expect(report).toContain('**✅ Lint clean; nothing breaks existing clients.**');
      expect(report).toContain('| Spectral (house rules + OWASP) | ✅ no problems |');
      expect(report).toContain('| Redocly lint | ✅ no problems |');
      expect(report).toContain('| Breaking changes | ✅ none |');
      expect(report).toContain('- `POST /workspaces` — request body: optional field `description` added.');
      expect(report).not.toContain('⛔');
      expect(report).toMatch(
        /`@persona-api\/types`: the generated types change — changed types: `WorkspaceCreateRequest`\. Public surface keeps its exported names\./,
      );
      expect(report).toContain('| Docs | not built here (`pnpm docs` writes `no-docs/index.html`) |');
      expect(output).toContain(report.trim()); // printed as well as written
      expect(status).toBe(0);
    },
    REVIEW_TIMEOUT,
  );

  it(
    'fails on breaking changes the PR does not declare, explaining each',
    () => {
      breakClients();
      const { status, report } = review();
      expect(report).toMatch(/^\*\*❌ \d+ breaking changes not declared\.\*\*$/m);
      expect(report).toContain('| Spectral (house rules + OWASP) | ✅ no problems |');
      expect(report).toContain(
        '- ⛔ `POST /workspaces` — request body: required field `region` added. Existing clients do not send it, so their requests are refused with a 400.',
      );
      expect(report).toMatch(/- ⛔ `GET \/workspaces`.* — response 200: field `data\[\]\.thread_count` removed\. Clients reading it get `undefined`/);
      expect(report).toContain(
        '- ⛔ `POST /workspaces` — request body: enum value `starter` removed from `type`. Clients sending `starter` are now refused with a 400.',
      );
      // The same enum value leaving a response breaks no one: it is in the changelog, unmarked.
      expect(report).toMatch(/^- `POST \/workspaces`, `GET \/workspaces\/\{id\}`.* — response 200: enum value `starter` removed from `type`\.$/m);
      expect(report).toContain('add a changeset that bumps `@persona-api/types` to a new major');
      expect(status).toBe(1);
    },
    REVIEW_TIMEOUT,
  );

  it(
    'passes the same breaking changes when a changeset bumps @persona-api/types to a new major',
    () => {
      breakClients();
      writeFileSync(join(repo, '.changeset', 'minor-only.md'), '---\n"@persona-api/types": minor\n---\n\nNot a declaration of a break.\n');
      expect(review().status).toBe(1); // a minor bump does not declare a break

      writeFileSync(
        join(repo, '.changeset', 'workspace-region.md'),
        '---\n"@persona-api/types": major\n"@persona-api/client": major\n---\n\nWorkspaces need a region.\n',
      );
      const { status, report } = review();
      expect(report).toContain(
        '**✅ Lint clean; the breaking changes are declared in `.changeset/workspace-region.md` (major bump of `@persona-api/types`).**',
      );
      expect(report).toMatch(/\| Breaking changes \| ⚠️ \d+ breaking changes, declared \|/);
      expect(report).toContain('Declared as intended by `.changeset/workspace-region.md` (“Workspaces need a region.”).');
      expect(report).toContain('required field `region` added');
      expect(status).toBe(0);
    },
    REVIEW_TIMEOUT,
  );

  it(
    'fails when the changed spec does not lint, and lists each problem',
    () => {
      edit('components/schemas/WorkspaceCreateRequest.yaml', (schema) => {
        schema.properties.displayName = { type: 'string', maxLength: 100 };
      });
      const { status, report } = review();
      expect(report).toMatch(/^\*\*❌ lint reports \d+ problems?\.\*\*$/m);
      expect(report).toMatch(/\| Spectral \(house rules \+ OWASP\) \| ❌ \d+ problems? \|/);
      expect(report).toMatch(
        /- Spectral error `persona-snake-case` at `#\/components\/schemas\/WorkspaceCreateRequest\/properties\/displayName`: .*displayName/,
      );
      expect(report).toContain('| Breaking changes | ✅ none |'); // an optional field breaks no one; lint alone fails the review
      expect(status).toBe(1);
    },
    REVIEW_TIMEOUT,
  );

  it('refuses an unknown ref with exit status 2', () => {
    const { status, output } = review('no-such-branch');
    expect(output).toContain('spec:review: unknown git ref "no-such-branch"');
    expect(status).toBe(2);
  });
});
