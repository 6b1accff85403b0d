import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig, DEFAULT_DATABASE_CONNECT_TIMEOUT_MS } from '../config/config';

/**
 * One definition of how we talk to PostgreSQL, shared by the Nest modules, the
 * migration runner and the tests. Entities are registered per module
 * (TypeOrmModule.forFeature + autoLoadEntities); the migrations are the schema.
 */
export function dataSourceOptions(
  config: Pick<AppConfig, 'databaseUrl'> & Partial<Pick<AppConfig, 'databaseConnectTimeoutMs'>>,
): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.databaseUrl,
    // A bounded wait for a connection (new or pooled): while the server is unreachable, a 503 instead of a hang.
    connectTimeoutMS: config.databaseConnectTimeoutMs ?? DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
    synchronize: false,
    migrationsRun: false,
    migrations: [join(__dirname, 'migrations', '*.{js,ts}')],
    migrationsTableName: 'schema_migrations',
    extra: { max: 20, application_name: 'property-ops' },
  };
}

export function migrationDataSource(config: Pick<AppConfig, 'databaseUrl'>): DataSource {
  return new DataSource(dataSourceOptions(config));
}
