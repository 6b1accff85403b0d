import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { RequestContext } from '../context/request-context';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import { transactionRetry } from './transaction-retry.rules';

/** A use case's transaction: its EntityManager, its request context, and work to run once it commits. */
export interface Tx {
  readonly manager: EntityManager;
  readonly ctx: RequestContext;
  /** Runs after a successful commit (e.g. enqueue webhook dispatch); never inside the transaction. */
  afterCommit(task: () => Promise<unknown> | unknown): void;
  /**
   * Stores `response` as the request's idempotent response in this transaction (nothing to store
   * when the request carries no Idempotency-Key) and returns it: a create use case ends with
   * `return tx.respond(shape)`. Once per request: a second call throws.
   */
  respond<T>(response: T): Promise<T>;
}

/**
 * One transaction per use case: the service's writes, the event-log rows it publishes and,
 * when it calls Tx.respond, the request's idempotent response all commit together or not at
 * all. After-commit tasks run only when the commit succeeded (those of a try rolled back never run).
 * The request's idempotency claim is outside the transaction: it holds across the tries.
 */
@Injectable()
export class UnitOfWork {
  private readonly logger = new Logger(UnitOfWork.name);
  /** Requests whose response is stored (or being stored by a transaction still open). */
  private readonly responded = new WeakSet<RequestContext>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /**
   * Runs `work` in a transaction. When PostgreSQL rolls it back for colliding with a concurrent one (a
   * deadlock's victim, a serialization failure), nothing of it committed: it runs again from the start,
   * a few times after a short jittered wait (transactionRetry), before the error goes to the caller.
   */
  async run<T>(ctx: RequestContext, work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let tried = 1; ; tried++) {
      try {
        return await this.runOnce(ctx, work);
      } catch (error) {
        const retry = transactionRetry(error, tried, Math.random());
        if (!retry) throw error;
        this.logger.warn(
          `transaction of ${ctx.requestId} rolled back for a conflict (${(error as Error).message}); running it again (try ${tried + 1})`,
        );
        await sleep(retry.delayMs);
      }
    }
  }

  private async runOnce<T>(ctx: RequestContext, work: (tx: Tx) => Promise<T>): Promise<T> {
    const afterCommit: Array<() => Promise<unknown> | unknown> = [];
    let respondedHere = false;
    let result: T;
    try {
      result = await this.dataSource.transaction(async (manager) => {
        const value = await work({
          manager,
          ctx,
          afterCommit: (task) => afterCommit.push(task),
          respond: async <R>(response: R): Promise<R> => {
            if (this.responded.has(ctx)) throw new Error('Tx.respond called twice for one request');
            this.responded.add(ctx);
            respondedHere = true;
            if (ctx.idempotency) await this.idempotency.complete(manager, ctx.idempotency, response);
            return response;
          },
        });
        if (ctx.beforeCommit) await ctx.beforeCommit(manager, value);
        return value;
      });
    } catch (error) {
      // Rolled back: nothing was stored, so a retry of the use case may respond again.
      if (respondedHere) this.responded.delete(ctx);
      throw error;
    }
    if (respondedHere && ctx.idempotency) ctx.idempotency.stored = true;
    for (const task of afterCommit) {
      // The change is committed; a failing follow-up (say Redis is down) is caught up by the worker's sweep.
      Promise.resolve()
        .then(task)
        .catch((error: Error) => this.logger.warn(`after-commit task failed: ${error.message}`));
    }
    return result;
  }
}
