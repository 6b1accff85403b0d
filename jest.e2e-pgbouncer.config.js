/**
 * The end-to-end suite's second run, through a private PgBouncer in transaction mode (what managed
 * PostgreSQL offers put in front of a database), with DATABASE_POOLER=transaction: the same black-box
 * behaviour as direct. And the run's Redis is a private 3-primary Redis Cluster (REDIS_CLUSTER_NODES),
 * so this pass is also the Cluster coverage of every file on the run's Redis (queues, webhooks, rate
 * limits, idempotency, health). Every file runs here unless listed below with why it cannot.
 */
const base = require('./jest.e2e.config');

/** File name → why it cannot run through the run's PgBouncer. Keep it short: prefer making a file work. */
const DIRECT_ONLY = {
  'database-outage.e2e-spec.ts':
    'brings its own PostgreSQL cluster (which it stops) and its own PgBouncer (whose KILL cuts its connections): the run’s pooler is not in its path',
  'redis-sentinel.e2e-spec.ts':
    'brings its own Redis primary, replica and sentinels in place of the run’s Cluster, and kills them: a Redis failover, which the pooler has no part in (its private database is the only thing the pooler would carry)',
};

module.exports = {
  ...base,
  globalSetup: '<rootDir>/test/support/global-setup-pgbouncer.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown-pgbouncer.ts',
  testPathIgnorePatterns: ['/node_modules/', ...Object.keys(DIRECT_ONLY).map((file) => `/test/e2e/${file.replace(/\./g, '\\.')}$`)],
};
