import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

// The suite runs on PGlite always, and a second time on PostgreSQL when TEST_DATABASE_URL is set
// (.ci/run sets it). Each test file gets its own database cloned from a migrated, seeded template.
const postgres = process.env.TEST_DATABASE_URL;

/**
 * Files whose subject is this process's own memory: a document bomb, an upload and a storage stream must not
 * grow the server's RSS past a bound. In a process that earlier files have grown, every reading over the bound
 * is confirmed by a full collection of their heap (support/memory.ts), and the bomb test ran past its minute.
 * These get a process of their own; every other file runs after the one before it in its worker's process
 * (`isolate: false`: the app is imported once per worker, not once per file; README "Tests").
 */
const OWN_PROCESS = ['test/security/documents.test.ts', 'test/resources/uploads-memory.test.ts', 'test/storage/local.test.ts', 'test/storage/s3.test.ts'];

/** A driver's two projects: the files that share their worker's process, and those with a process each. */
function driverProjects(
  driver: 'pglite' | 'postgres',
  options: { exclude: string[]; groupOrder: number; typecheck?: boolean },
): TestProjectInlineConfiguration[] {
  const common = {
    // One template database and one contract report for both projects (test/setup/once.ts).
    globalSetup: [`test/setup/global-${driver}.ts`],
    sequence: { groupOrder: options.groupOrder },
  };
  return [
    {
      extends: true,
      test: {
        ...common,
        name: driver,
        include: ['test/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...options.exclude, ...OWN_PROCESS],
        isolate: false,
        // The handler-map type test (tsc): a missing handler or a wrong type is a compile error.
        ...(options.typecheck ? { typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' } } : {}),
      },
    },
    {
      extends: true,
      test: { ...common, name: `${driver}-own-process`, include: OWN_PROCESS, exclude: [...configDefaults.exclude, ...options.exclude], isolate: true },
    },
  ];
}

export default defineConfig({
  test: {
    pool: 'forks',
    // PGlite instances are large; two files at a time fit the 2-core machines.
    maxWorkers: 2,
    // A file that leaves a member on a built-in prototype fails (README "Tests": files share a process).
    setupFiles: ['test/setup/shared-process.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The drivers run one after the other, not at the same time.
    sequence: { groupOrder: 0 },
    projects: [
      // PostgreSQL only: the fault suite cuts a TCP proxy in front of PostgreSQL (an in-process PGlite has
      // no connection to cut); the plan test reads PostgreSQL's planner on a grown history.
      ...driverProjects('pglite', {
        exclude: ['test/hardening/faults.test.ts', 'test/scale-plans.test.ts', 'test/db/driver-faults.test.ts'],
        groupOrder: 1,
        typecheck: true,
      }),
      // PGlite only: how V8 compiles PGlite's WebAssembly, where a new PGlite directory comes from, and what a
      // start on PGlite loads (each in processes of its own, whatever the driver).
      ...(postgres
        ? driverProjects('postgres', {
            exclude: ['test/db/wasm-tiering.test.ts', 'test/db/pglite-template.test.ts', 'test/start-imports.test.ts'],
            groupOrder: 2,
          })
        : []),
    ],
  },
});
