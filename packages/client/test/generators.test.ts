import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@hey-api/openapi-ts';
import { generate } from 'orval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 24: third-party OpenAPI TypeScript generators, run on the bundle as users run them, must produce code
// that type-checks with zero errors under strict settings; a small program using each proves the types are real
// (a missing required field is an error), not `any`. Bounded: two generations and one tsc run, ~30 s.

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const BUNDLE = fileURLToPath(new URL('../../../openapi/dist/openapi.json', import.meta.url));
const TSC = require.resolve('typescript/bin/tsc');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'generators-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ['heyapi', 'orval', 'usage.ts'],
};

// Calls through both generated clients; each @ts-expect-error fails tsc if the type it guards went loose.
const USAGE = `
import { client } from './heyapi/client.gen';
import { createProject as heyCreateProject, listModels as heyListModels } from './heyapi/sdk.gen';
import { createProject, listModels } from './orval/api';

client.setConfig({ baseUrl: 'http://127.0.0.1:8080/api/v1', headers: { Authorization: 'Bearer svc_live_example' } });

export async function usage(): Promise<string[]> {
  const models = await heyListModels();
  const heyIds: string[] = models.data?.data.map((model) => model.id) ?? [];
  await heyCreateProject({ body: { workspace_id: 'ws_1', name: 'Launch' } });
  // @ts-expect-error workspace_id is required
  await heyCreateProject({ body: { name: 'Launch' } });

  const listed = await listModels();
  const orvalIds: string[] = listed.status === 200 ? listed.data.data.map((model) => model.id) : [];
  await createProject({ workspace_id: 'ws_1', name: 'Launch' });
  // @ts-expect-error workspace_id is required
  await createProject({ name: 'Launch' });
  return [...heyIds, ...orvalIds];
}
`;

describe('third-party generators on the bundled contract', () => {
  it('@hey-api/openapi-ts 0.99 and orval 8 generate clients that type-check with zero errors', async () => {
    await createClient({ input: BUNDLE, output: join(dir, 'heyapi'), logs: { level: 'silent' } });
    await generate({ input: { target: BUNDLE }, output: { target: join(dir, 'orval', 'api.ts'), client: 'fetch' } });
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await writeFile(join(dir, 'usage.ts'), USAGE);
    const result = await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { maxBuffer: 16 * 1024 * 1024 }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 180_000);
});
