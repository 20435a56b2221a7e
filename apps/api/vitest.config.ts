import { configDefaults, defineConfig } from 'vitest/config';

// The suite runs on PGlite always, and a second time on PostgreSQL when TEST_DATABASE_URL is set
// (.ci/run sets it). Each test file gets its own database cloned from a migrated, seeded template.
const postgres = process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    pool: 'forks',
    // PGlite instances are large; two files at a time fit the 2-core machines.
    maxWorkers: 2,
    // Each file in a process of its own (vitest's default); README "Tests" says what `--no-isolate` gains and risks.
    setupFiles: ['test/setup/shared-process.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The drivers run one after the other, not at the same time.
    sequence: { groupOrder: 0 },
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ['test/**/*.test.ts'],
          // PostgreSQL only: the fault suite cuts a TCP proxy in front of PostgreSQL (an in-process PGlite has
          // no connection to cut); the plan test reads PostgreSQL's planner on a grown history.
          exclude: [...configDefaults.exclude, 'test/hardening/faults.test.ts', 'test/scale-plans.test.ts', 'test/db/driver-faults.test.ts'],
          globalSetup: ['test/setup/global-pglite.ts'],
          sequence: { groupOrder: 1 },
          // The handler-map type test (tsc): a missing handler or a wrong type is a compile error.
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/**/*.test.ts'],
                globalSetup: ['test/setup/global-postgres.ts'],
                sequence: { groupOrder: 2 },
              },
            },
          ]
        : []),
    ],
  },
});
