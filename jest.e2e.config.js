/** End-to-end tests: the real app over HTTP, real PostgreSQL and Redis, in a database the run creates. */
module.exports = {
  rootDir: '.',
  testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // Each file leaves ~20 MB behind in its jest worker (after GC), ~1 GB by the end of a run: a worker
  // that big took ~280 ms to exit once idle (past jest's 500 ms on a loaded machine: "A worker process has
  // failed to exit gracefully"; no handle was open) and every full GC scanned it. Past this, jest starts a fresh worker.
  workerIdleMemoryLimit: '600MB',
};
