import globalSetup from './global-setup';
import { PgBouncer, startPgBouncer } from './pgbouncer';
import { testPrerequisites } from './prerequisites';
import { testServerUrl } from './test-env';

/** Jest shares globalThis between a run's globalSetup and globalTeardown (only). */
export const run = globalThis as typeof globalThis & { pgbouncer?: PgBouncer };

/**
 * The suite's second run (jest.e2e-pgbouncer.config.js): a private PgBouncer in transaction mode in
 * front of the run's server, and every database the run touches (its own, the files' private ones,
 * migrations and teardown included) reached through it, with the app told so (DATABASE_POOLER).
 */
export default async function globalSetupThroughPgBouncer(): Promise<void> {
  run.pgbouncer = await startPgBouncer(testPrerequisites().pgbouncer, testServerUrl(), { poolMode: 'transaction' });
  process.env.TEST_DATABASE_URL = run.pgbouncer.url;
  process.env.TEST_DATABASE_POOLER = 'transaction';
  await globalSetup();
}
