import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'

// Two projects. `default`: every test, the API tests on in-memory SQLite. `postgres`: the API tests again on
// PostgreSQL (TEST_DB=postgres, read by test/helpers/build-test-app.ts) and the PostgreSQL-only files. The latter
// exists when TEST_DATABASE_URL is set, and in CI always: without a database it fails there instead of skipping
// (DEVELOPERS: nothing may be skipped in CI). Otherwise the PostgreSQL-only files stay in `default` and skip.
const ci = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'
const withPostgres = (process.env.TEST_DATABASE_URL ?? '').trim() !== '' || ci
const postgresOnly = ['test/**/postgres*.test.ts']
// TEST_SECOND_NODE_LINE=1 (.ci/run, on Node 22): every file but the in-process API and provider suites, which the
// Node 24 run takes twice (SQLite and PostgreSQL), and the pages in Chromium (`*.browser.test.ts`: what they add to
// the API tests is the browser's side); the real processes, the CLI, the drivers, the database drivers and the chain
// run on both lines (docs/operations.md#nodejs-versions).
const secondLine = process.env.TEST_SECOND_NODE_LINE === '1'
const firstLineOnly = ['test/api/**', 'test/providers/**', '**/*.browser.test.ts']

export default defineConfig({
  // tests import the client package from its sources, as tsconfig.json's `paths` does for the type check
  resolve: {
    alias: { '@invoice-service/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time at least: Vitest's default is one fewer than the cores, one on a 2-core machine (CI's
    // too), and the files wait on child processes, browsers and databases more than they compute. Measured on 2
    // cores, every test on Node 24: 1308 s one at a time, 931 s two at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          // builds dist/ for the CLI and serve tests; here only, since a project inheriting it would build again
          globalSetup: ['test/global-setup.ts'],
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            ...(withPostgres ? postgresOnly : []),
            ...(secondLine ? firstLineOnly : []),
          ],
        },
      },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/api/**/*.test.ts', 'test/providers/*.conformance.test.ts', ...postgresOnly],
                env: { TEST_DB: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
})
