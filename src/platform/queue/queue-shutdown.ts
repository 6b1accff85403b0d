import { BeforeApplicationShutdown, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Closable, closeWithin, endRetriesOnceDropped } from './close-within';

/** How long a producer queue may take to close at shutdown (never waiting on a Redis that is down). */
export const QUEUE_CLOSE_WITHIN_MS = 2_000;

/**
 * Closes every BullMQ worker and queue of the process at shutdown, all at once: workers first (their
 * running jobs finish, each within its own bound, while the database is still open), then the producer
 * queues. Closing them module by module would add the bounds up while Redis is down, and the worker
 * process would reach its hard deadline.
 */
@Injectable()
export class QueueShutdown implements OnModuleDestroy, BeforeApplicationShutdown {
  private readonly workers: Array<[Closable, number]> = [];
  private readonly queues: Array<[Closable, number]> = [];

  closeWorkerOnShutdown(worker: Closable, withinMs: number): void {
    endRetriesOnceDropped(worker);
    this.workers.push([worker, withinMs]);
  }

  closeQueueOnShutdown(queue: Closable, withinMs = QUEUE_CLOSE_WITHIN_MS): void {
    this.queues.push([queue, withinMs]);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.splice(0).map(([worker, withinMs]) => closeWithin(worker, withinMs)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues.splice(0).map(([queue, withinMs]) => closeWithin(queue, withinMs)));
  }
}
