import { Client } from 'pg';
import { migrate } from '../../src/database/migrate';
import { assertTestDatabase, TEST_RUN_ID, testEnvironment } from './test-env';

/** Creates this run's database from scratch and applies the migrations, as production would. */
export default async function globalSetup(): Promise<void> {
  const env = testEnvironment(TEST_RUN_ID);
  Object.assign(process.env, env);
  assertTestDatabase(env.DATABASE_URL);

  const admin = new URL(env.DATABASE_URL);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();

  await migrate({ databaseUrl: env.DATABASE_URL, isProduction: false });
}
