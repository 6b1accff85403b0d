import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { IdempotencyStore } from '../http/idempotency.store';
import { RequestContext } from '../http/request-context';

/** A use case's transaction: its EntityManager, its request context, and work to run once it commits. */
export interface Tx {
  readonly manager: EntityManager;
  readonly ctx: RequestContext;
  /** Runs after a successful commit (e.g. enqueue webhook dispatch); never inside the transaction. */
  afterCommit(task: () => Promise<unknown> | unknown): void;
}

/**
 * One transaction per use case: the service's writes, the event-log rows it
 * publishes and the idempotency record of the request all commit together or not
 * at all. After-commit tasks run only when the commit succeeded.
 */
@Injectable()
export class UnitOfWork {
  private readonly logger = new Logger(UnitOfWork.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly idempotency: IdempotencyStore,
  ) {}

  async run<T>(ctx: RequestContext, work: (tx: Tx) => Promise<T>): Promise<T> {
    const afterCommit: Array<() => Promise<unknown> | unknown> = [];
    const result = await this.dataSource.transaction(async (manager) => {
      const value = await work({ manager, ctx, afterCommit: (task) => afterCommit.push(task) });
      if (ctx.idempotency) await this.idempotency.complete(manager, ctx.idempotency, value);
      return value;
    });
    for (const task of afterCommit) {
      // The change is committed; a failing follow-up (say Redis is down) is caught up by the worker's sweep.
      Promise.resolve()
        .then(task)
        .catch((error: Error) => this.logger.warn(`after-commit task failed: ${error.message}`));
    }
    return result;
  }
}
