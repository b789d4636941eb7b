/** Jest on native ES modules (node --experimental-vm-modules), TypeScript compiled by SWC. See docs/decisions. */
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { swcrc: true }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
};

export default {
  // A global option in Jest 30 (a project's own testTimeout is not applied); e2e specs wait on real services.
  testTimeout: 30000,
  // Three test files at a time (Jest's default on a 2-core machine is one, in band): most of an e2e file's time is spent
  // waiting on PostgreSQL, Redis and worker processes. Files share the run's database and Redis prefix, each with
  // organizations and queue prefixes of its own; a spec that changes the schema or reads whole tables takes a database
  // of its own (test/support/database.ts). Measured on the 2-core machine: 1,402 s in band, 484 s with two files at a
  // time; on 2026-11-27, 524 s with two and 432 s with three.
  maxWorkers: 3,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/examples/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/examples/**/*.e2e-spec.ts'],
      // Every response a test receives is validated against the served OpenAPI document (test/support/response-validation.ts),
      // and the ledger of every customer of the test's organizations sums to its balance (test/support/ledger.ts).
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi-setup.ts', '<rootDir>/test/support/ledger-setup.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.js',
      globalTeardown: '<rootDir>/test/support/global-teardown.js',
    },
    // Medium: the evaluation pipeline and its repositories on the run's real database, without HTTP (test/medium).
    {
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.js',
      globalTeardown: '<rootDir>/test/support/global-teardown.js',
    },
    // Faults: Redis stopped, PostgreSQL connections killed, workers killed. Part of `npm test`; `npm run test:faults`
    // runs them alone. They stop only a Redis server of their own and kill only this run's database connections.
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.js',
      globalTeardown: '<rootDir>/test/support/global-teardown.js',
    },
  ],
};
