import { Injectable } from '@nestjs/common';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Plain parameterised SQL straight through the `pg` pool TypeORM opened (no second pool,
 * no query builder, no query runner), as named prepared statements: PostgreSQL parses and
 * plans each statement once per connection. For hot reads outside a transaction only;
 * writes and transactional reads go through UnitOfWork's EntityManager.
 */
@Injectable()
export class Sql {
  constructor(private readonly dataSource: DataSource) {}

  /** `name` identifies the statement on every connection: one name, one text. */
  async prepared<T extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool().query<T>({ name, text, values });
    return result.rows;
  }

  private pool(): Pool {
    // The pool exists once the data source is initialised, which Nest does before any request.
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }
}
