import { Inject, Injectable } from '@nestjs/common';
import type { Pool, QueryConfig, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';

/**
 * Plain parameterised SQL straight through the `pg` pool TypeORM opened (no second pool,
 * no query builder, no query runner). For hot statements outside a transaction only (reads, and the
 * webhook engine's single-statement claims and records); transactions go through UnitOfWork's EntityManager.
 *
 * On a connection that stays ours (DATABASE_POOLER `none` or `session`) each statement is a
 * named prepared statement, parsed and planned once per connection. Behind a transaction pooler
 * the next query may land on another server connection that never saw the name ("prepared
 * statement … does not exist"), so there every statement is unnamed: parsed and planned per call.
 */
@Injectable()
export class Sql {
  private readonly named: boolean;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'databasePooler'>,
  ) {
    this.named = config.databasePooler !== 'transaction';
  }

  /** `name` identifies the statement on every connection: one name, one text. */
  async prepared<T extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const query: QueryConfig = this.named ? { name, text, values } : { text, values };
    const result = await this.pool().query<T>(query);
    return result.rows;
  }

  private pool(): Pool {
    // The pool exists once the data source is initialised, which Nest does before any request.
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }
}
