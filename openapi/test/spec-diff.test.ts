// `pnpm spec:diff [ref]` on a throwaway git repository: a committed contract, then working-tree edits.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { PACKAGE_DIR } from './support/bundle.js';

const SCRIPT = join(PACKAGE_DIR, 'scripts', 'spec-diff.mjs');

function contract({ requestRequired = ['name'], requestProps = {}, responseProps = {} as Record<string, object> } = {}) {
  return {
    openapi: '3.1.0',
    info: { title: 'Diff fixture', version: '1.0.0' },
    paths: {
      '/widgets': {
        post: {
          operationId: 'createWidget',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: requestRequired, properties: { name: { type: 'string' }, ...requestProps } },
              },
            },
          },
          responses: {
            '200': {
              description: 'The widget.',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Widget' },
                  examples: { widget: { value: { id: 'w_1', name: 'Sprocket', colour: 'red' } } },
                },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Widget: {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: { type: 'string' }, name: { type: 'string' }, colour: { type: 'string' }, ...responseProps },
        },
      },
    },
  };
}

let repo: string;
let specDir: string;
const git = (...args: string[]) => {
  const result = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
};
const writeContract = (doc: object) => writeFileSync(join(specDir, 'openapi.yaml'), stringify(doc));
const specDiff = (ref = 'main') => {
  const result = spawnSync(process.execPath, [SCRIPT, ref, '--spec-dir', specDir], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
};

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'spec-diff-test-'));
  specDir = join(repo, 'openapi');
  mkdirSync(specDir);
  git('init', '--quiet', '--initial-branch=main');
  writeContract(contract());
  git('add', '.');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', 'base contract');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('spec:diff', () => {
  it('fails and names each break when a response field is removed and a required request field is added', () => {
    const next = contract({ requestRequired: ['name', 'size'], requestProps: { size: { type: 'integer' } } });
    delete (next.components.schemas.Widget.properties as Record<string, unknown>).colour;
    writeContract(next);
    const { status, output } = specDiff();
    expect(status).toBe(1);
    expect(output).toMatch(/✗ POST \/widgets response 200: field `colour` removed. Clients reading it/);
    expect(output).toMatch(/✗ POST \/widgets request body: required field `size` added. Existing clients do not send it/);
    expect(output).toContain('Breaking change against main');
  });

  it('passes when only an optional response field and an optional request field are added', () => {
    writeContract(contract({ requestProps: { note: { type: 'string' } }, responseProps: { weight: { type: 'number' } } }));
    const { status, output } = specDiff();
    expect(output).toContain('No breaking change.');
    expect(status).toBe(0);
  });

  it('refuses an unknown ref with exit code 2', () => {
    const { status, output } = specDiff('no-such-branch');
    expect(status).toBe(2);
    expect(output).toContain('unknown git ref "no-such-branch"');
  });
});
