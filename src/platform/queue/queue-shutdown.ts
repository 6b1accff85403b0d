import { BeforeApplicationShutdown, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Closable, closeWithin, endRetriesOnceDropped } from './close-within';

/** A client to end without waiting (ioredis' disconnect()). */
interface Droppable {
  disconnect(): void;
}

async function closeThenDrop([target, withinMs, owned]: [Closable, number, Droppable?]): Promise<void> {
  try {
    await closeWithin(target, withinMs);
  } finally {
    owned?.disconnect();
  }
}

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
  private readonly workers: Array<[Closable, number, Droppable?]> = [];
  private readonly queues: Array<[Closable, number, Droppable?]> = [];

  /**
   * `owned`: the client BullMQ was given rather than options (a Cluster, see bullMqConnection); BullMQ
   * leaves a client it was given open, so it is dropped here once its queue or worker has closed.
   */
  closeWorkerOnShutdown(worker: Closable, withinMs: number, owned?: Droppable): void {
    endRetriesOnceDropped(worker);
    this.workers.push([worker, withinMs, owned]);
  }

  closeQueueOnShutdown(queue: Closable, withinMs = QUEUE_CLOSE_WITHIN_MS, owned?: Droppable): void {
    this.queues.push([queue, withinMs, owned]);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.splice(0).map(closeThenDrop));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues.splice(0).map(closeThenDrop));
  }
}
