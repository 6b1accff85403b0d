import globalSetup from './global-setup';
import { PgBouncer, startPgBouncer } from './pgbouncer';
import { testPrerequisites } from './prerequisites';
import { PrivateRedisCluster, startPrivateRedisCluster } from './private-redis-cluster';
import { testServerUrl } from './test-env';

/** Jest shares globalThis between a run's globalSetup and globalTeardown (only). */
export const run = globalThis as typeof globalThis & { pgbouncer?: PgBouncer; redisCluster?: PrivateRedisCluster };

/**
 * The suite's second run (jest.e2e-pgbouncer.config.js): a private PgBouncer in transaction mode in
 * front of the run's server, and every database the run touches (its own, the files' private ones,
 * migrations and teardown included) reached through it, with the app told so (DATABASE_POOLER).
 * And the run's Redis is a private 3-primary Redis Cluster (REDIS_CLUSTER_NODES): every file that uses
 * the run's Redis (queues, webhooks, rate limits, idempotency, health) runs against a Cluster here,
 * at no extra pass (files that start a redis-server of their own keep it).
 */
export default async function globalSetupThroughPgBouncer(): Promise<void> {
  try {
    run.pgbouncer = await startPgBouncer(testPrerequisites().pgbouncer, testServerUrl(), { poolMode: 'transaction' });
    run.redisCluster = await startPrivateRedisCluster(3);
    process.env.TEST_REDIS_CLUSTER_NODES = run.redisCluster.nodes;
    process.env.TEST_DATABASE_URL = run.pgbouncer.url;
    process.env.TEST_DATABASE_POOLER = 'transaction';
    await globalSetup();
  } catch (error) {
    // Jest runs no teardown after a failed setup: nothing of ours may be left running.
    await run.redisCluster?.stop();
    await run.pgbouncer?.stop();
    throw error;
  }
}
