import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** A repository that writes SQL by hand: writes take the use case's transaction manager, reads may use `manager`. */
@Injectable()
export abstract class SqlRepository {
  constructor(protected readonly dataSource: DataSource) {}

  /** For reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
