import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Queue } from 'bullmq';
import { ENQUEUE_WITHIN_MS, enqueueBestEffort } from '../../platform/queue/enqueue-best-effort';
import { RedisCircuit } from '../../platform/redis/redis-circuit';
import { EventsService } from '../events/events.service';
import { deliveryQueueIndex, WEBHOOK_DELIVERY_QUEUE } from './delivery-queues';

export { WEBHOOK_DELIVERY_QUEUE };
export const WEBHOOK_DISPATCH_QUEUE = 'webhook-dispatch';
export const WEBHOOK_REPLAY_QUEUE = 'webhook-replay';

/** Every delivery queue, in order (WEBHOOK_DELIVERY_QUEUES; the first is WEBHOOK_DELIVERY_QUEUE's). */
export const WEBHOOK_DELIVERY_QUEUES = Symbol('WEBHOOK_DELIVERY_QUEUES');
type DeliveryQueue = Queue<DeliveryJobData | BatchWake>;

/** Job data of the replay queue: one replay (the job id is the replay id). */
export interface ReplayJobData {
  replayId: string;
}

/** Job data of the dispatch queue: one event (the job id is the event id). */
export interface DispatchJobData {
  eventId: string;
}

/** Job data of the delivery queue: `attempt` = attempts already made (0 = first), i.e. webhook-retry-count. */
export interface DeliveryJobData {
  deliveryId: string;
  attempt: number;
  /** Known when dispatch enqueues: lets a busy subscription's job be parked before any query. */
  subscriptionId?: string;
  /** The W3C trace context of the attempt that scheduled this one (a retry): its span links to it. */
  previous?: string;
}

/**
 * Job data of a subscription's wake-up (job name `batch`): its deliveries from `fromId` on (ids sort by
 * creation) are due. The job id is `batch.<subscriptionId>.<fromId>`: one per dispatch of new deliveries.
 */
export interface BatchWake {
  accountId: string;
  subscriptionId: string;
  fromId: string;
  /** The subscription is ordered (issue 31): its claims look for the head of its order too. */
  ordered?: boolean;
}

/** An attempt due and unclaimed in the database (the sweep's): `attempt` = attempts already made. */
export interface DueAttempt {
  deliveryId: string;
  attempt: number;
  subscriptionId: string;
}

/** Why the sweep failed an active job that never claimed its attempt (BullMQ's failedReason; the job is removed). */
const STALE_ACTIVE_REASON = 'replaced by the sweep: active without claiming its attempt (its worker is gone)';

export interface DeliveryEnqueueOptions {
  delayMs?: number;
  /** Attempts already made (0 = first, the default). */
  attempt?: number;
  /** Names the job's delivery queue (deliveryQueueIndex), so every enqueue of a delivery finds the same one. */
  subscriptionId: string;
  /**
   * Ahead of the jobs waiting (BullMQ `lifo`): an attempt already overdue (its job lost, or its previous
   * attempt lost with its worker) goes next rather than behind the backlog its worker's death left.
   */
  ahead?: boolean;
  /** See DeliveryJobData.previous. */
  previous?: string;
}

/**
 * Finished jobs are removed, so Redis does not grow with traffic and a job id is free again for the
 * sweep once its job is gone (a kept failed job would block re-enqueueing its id). A dispatch job whose
 * processing throws (database briefly down) is retried a few times first: dispatching twice is harmless.
 * A delivery job runs once: its attempt is claimed in the database before the POST, and whatever it
 * left undone (a failed load, an unrecorded outcome) is the sweep's, which sends a new attempt.
 */
const REMOVE_FINISHED = { removeOnComplete: true, removeOnFail: true } as const;
const DISPATCH_JOB_OPTIONS = { ...REMOVE_FINISHED, attempts: 3, backoff: { type: 'exponential', delay: 1000 } } as const;
const DELIVERY_JOB_OPTIONS = { ...REMOVE_FINISHED, attempts: 1 } as const;
/** A replay job that throws (database briefly down) is tried again; the sweep re-enqueues one whose job was lost. */
const REPLAY_JOB_OPTIONS = { ...REMOVE_FINISHED, attempts: 5, backoff: { type: 'exponential', delay: 1000 } } as const;

/**
 * Producer side of the webhook engine, used by the API and the worker. Job ids make
 * enqueueing idempotent while a job exists: the event id for dispatch, and
 * `<deliveryId>.<attempt>` for an attempt, so an attempt is never queued twice.
 * The database is the truth; the worker's sweep re-enqueues whatever was lost here.
 */
@Injectable()
export class WebhookQueue implements OnModuleInit {
  private readonly logger = new Logger(WebhookQueue.name);

  constructor(
    @InjectQueue(WEBHOOK_DISPATCH_QUEUE) private readonly dispatchQueue: Queue<DispatchJobData>,
    @Inject(WEBHOOK_DELIVERY_QUEUES) private readonly deliveryQueues: DeliveryQueue[],
    @InjectQueue(WEBHOOK_REPLAY_QUEUE) private readonly replayQueue: Queue<ReplayJobData>,
    private readonly events: EventsService,
    private readonly circuit: RedisCircuit,
  ) {}

  onModuleInit(): void {
    // The fast path: dispatch right after the publishing transaction commits.
    this.events.onCommitted((events) => this.enqueueDispatch(events.map((event) => event.id)));
  }

  /** Best effort (enqueueBestEffort: never throws, bounded wait): the sweep catches up undispatched events. */
  async enqueueDispatch(eventIds: string[]): Promise<void> {
    const jobs = eventIds.map((eventId) => ({ name: 'dispatch', data: { eventId }, opts: { jobId: eventId, ...DISPATCH_JOB_OPTIONS } }));
    await this.addBulk(this.dispatchQueue, jobs, `enqueueing dispatch of ${eventIds.length} event(s) failed`);
  }

  /** One attempt job; see enqueueDeliveries. */
  async enqueueDelivery(deliveryId: string, options: DeliveryEnqueueOptions): Promise<void> {
    await this.enqueueDeliveries([{ deliveryId, ...options }]);
  }

  /** Best effort (never throws, bounded wait): the sweep catches up pending deliveries past their next_retry_at. */
  async enqueueDeliveries(items: Array<{ deliveryId: string } & DeliveryEnqueueOptions>): Promise<void> {
    const jobs = items.map(({ deliveryId, delayMs, attempt = 0, subscriptionId, ahead, previous }) => ({
      name: 'deliver',
      // (An undefined subscriptionId or previous is left out when BullMQ serializes the data.)
      data: { deliveryId, attempt, subscriptionId, previous },
      opts: {
        jobId: deliveryJobId(deliveryId, attempt),
        delay: delayMs && delayMs > 0 ? delayMs : undefined,
        lifo: ahead || undefined,
        ...DELIVERY_JOB_OPTIONS,
      },
    }));
    await this.addToDeliveryQueues(jobs, (job) => job.data.subscriptionId, `enqueueing ${items.length} delivery attempt(s) failed`);
  }

  /** Wake-ups of subscriptions' batch loops (WebhookBatches). Best effort (never throws, bounded wait): the sweep sends what waits past its due time. */
  async enqueueBatches(wakes: BatchWake[], delayMs?: number): Promise<void> {
    const jobs = wakes.map((wake) => ({
      name: BATCH_JOB,
      data: wake,
      opts: { jobId: batchJobId(wake), delay: delayMs, ...DELIVERY_JOB_OPTIONS },
    }));
    await this.addToDeliveryQueues(jobs, (job) => job.data.subscriptionId, `enqueueing ${wakes.length} subscription wake-up(s) failed`);
  }

  /** The delivery queue of a subscription's jobs (deliveryQueueIndex): always the same one. */
  private deliveryQueueOf(subscriptionId: string): DeliveryQueue {
    return this.deliveryQueues[deliveryQueueIndex(subscriptionId, this.deliveryQueues.length)];
  }

  /** Jobs to their subscriptions' delivery queues: one addBulk per queue, side by side. */
  private async addToDeliveryQueues<J extends Parameters<DeliveryQueue['addBulk']>[0][number]>(
    jobs: J[],
    subscriptionOf: (job: J) => string,
    failure: string,
  ): Promise<void> {
    const byQueue = new Map<DeliveryQueue, J[]>();
    for (const job of jobs) {
      const queue = this.deliveryQueueOf(subscriptionOf(job));
      byQueue.set(queue, [...(byQueue.get(queue) ?? []), job]);
    }
    await Promise.all([...byQueue].map(([queue, queued]) => this.addBulk(queue, queued, failure)));
  }

  /**
   * The sweep's re-enqueue of attempts the database says are due and unclaimed (`items`). An attempt's job
   * that is gone is added again; one that waits (waiting, delayed, prioritized) is left, it will run; one
   * that will never run is replaced (removed, then added again under the same id): finished and kept, or
   * active for more than `staleActiveMs` without its attempt claimed. Each goes ahead of the jobs waiting
   * (`items` come oldest due first, and go in that order). The last is a worker killed (or cut
   * off) between taking the job and claiming its attempt: BullMQ keeps such a job active, and its id
   * taken, until its lock runs out (WEBHOOK_TIMEOUT_MS + 30 s) and a stalled check (every 30 s) moves it,
   * so adding the id again did nothing for up to 70 s. A live worker claims a job's attempt within about
   * a second of taking it; if it still runs a replaced job, the claim lets only one run send the attempt.
   * Never throws (the next sweep tries again).
   */
  async requeueDue(items: DueAttempt[], staleActiveMs: number): Promise<{ added: number; replaced: number }> {
    let replaced = 0;
    const toAdd = await Promise.all(
      items.map(async (item) => {
        const jobId = deliveryJobId(item.deliveryId, item.attempt);
        try {
          const queue = this.deliveryQueueOf(item.subscriptionId);
          const state = await queue.getJobState(jobId);
          if (state === 'unknown') return item;
          if (state !== 'active' && state !== 'completed' && state !== 'failed') return undefined;
          const job = await queue.getJob(jobId);
          if (!job) return item;
          if (state === 'active') {
            if (Date.now() - (job.processedOn ?? 0) < staleActiveMs) return undefined;
            // Token '0': finished whoever holds the lock (a dead worker); removed, as removeOnFail says.
            await job.moveToFailed(new Error(STALE_ACTIVE_REASON), '0');
          } else {
            await job.remove();
          }
          replaced++;
          return item;
        } catch (error) {
          this.logger.warn(
            `checking the job of attempt ${item.attempt} of ${item.deliveryId} failed (the sweep will retry): ${(error as Error).message}`,
          );
          return undefined;
        }
      }),
    );
    const added = toAdd.filter((item): item is DueAttempt => item !== undefined);
    // Ahead of the waiting jobs, the oldest due first: each job added ahead goes before the ones added before it.
    await this.enqueueDeliveries(added.map((item) => ({ ...item, ahead: true })).reverse());
    return { added: added.length, replaced };
  }

  /**
   * An attempt to run now (POST …/retry): added, or, when its job already waits delayed (a pending
   * delivery's scheduled retry), promoted. Best effort (never throws, bounded wait): the sweep catches up a lost one.
   */
  async enqueueDeliveryNow(deliveryId: string, attempt: number, subscriptionId: string): Promise<void> {
    const addOrPromote = async () => {
      const existing = await this.deliveryQueueOf(subscriptionId).getJob(deliveryJobId(deliveryId, attempt));
      if (existing && (await existing.isDelayed())) await existing.promote();
      else if (!existing) await this.enqueueDelivery(deliveryId, { attempt, subscriptionId });
    };
    await enqueueBestEffort(
      addOrPromote,
      this.logger,
      `enqueueing attempt ${attempt} of ${deliveryId} now failed (the sweep will retry)`,
      ENQUEUE_WITHIN_MS,
      this.circuit,
    );
  }

  /** Best effort (never throws, bounded wait): the sweep re-enqueues a running replay whose job was lost. */
  async enqueueReplays(replayIds: string[]): Promise<void> {
    const jobs = replayIds.map((replayId) => ({ name: 'replay', data: { replayId }, opts: { jobId: replayId, ...REPLAY_JOB_OPTIONS } }));
    await this.addBulk(this.replayQueue, jobs, `enqueueing ${replayIds.length} replay(s) failed`);
  }

  /** The jobs in one round trip, best effort (enqueueBestEffort: never throws, bounded wait); none, no call. */
  private async addBulk<Q extends Queue>(queue: Q, jobs: Parameters<Q['addBulk']>[0], failure: string): Promise<void> {
    if (jobs.length === 0) return;
    await enqueueBestEffort(() => queue.addBulk(jobs), this.logger, `${failure} (the sweep will retry)`, ENQUEUE_WITHIN_MS, this.circuit);
  }
}

/** The job name of a subscription's wake-up on the delivery queue (the others, `deliver`, are single attempts). */
export const BATCH_JOB = 'batch';

export function batchJobId(wake: BatchWake): string {
  return `batch.${wake.subscriptionId}.${wake.fromId}`;
}

/** BullMQ refuses ':' in custom ids; delivery ids are `whd_<ULID>`. */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}.${attempt}`;
}
