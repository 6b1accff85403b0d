import { migrate } from '../../src/database/migrate';
import { dropTestDatabase, TEST_RUN_ID, testEnvironment } from './test-env';

/** Creates this run's database from scratch and applies the migrations, as production would. */
export default async function globalSetup(): Promise<void> {
  const env = testEnvironment(TEST_RUN_ID);
  Object.assign(process.env, env);
  await dropTestDatabase(env.DATABASE_URL);
  await migrate({ databaseUrl: env.DATABASE_URL, isProduction: false });
}
