import { run } from './global-setup-pgbouncer';
import globalTeardown from './global-teardown';

/** The usual teardown (through PgBouncer), then PgBouncer and the Redis Cluster stop. */
export default async function globalTeardownThroughPgBouncer(): Promise<void> {
  try {
    await globalTeardown();
  } finally {
    await run.pgbouncer?.stop();
    await run.redisCluster?.stop();
  }
}
