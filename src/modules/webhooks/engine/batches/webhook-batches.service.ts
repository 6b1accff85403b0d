import { Injectable, Logger } from '@nestjs/common';
import { BATCH_JOB, BatchWake, DeliveryJobData, WebhookQueue } from '../../webhook-queue.service';
import { WebhookAdmission } from '../admission/webhook-admission.service';
import { WebhookClaims } from '../claims/webhook-claims.service';
import { OrderStep, WebhookAttemptPipeline } from '../pipeline/webhook-attempt-pipeline.service';
import { JobResult, LaneParts, WebhookLane } from './webhook-lane';

export type { JobResult } from './webhook-lane';

/** A job of the delivery queue: a subscription's wake-up (named BATCH_JOB), or one attempt (`deliver`). */
export interface DeliveryQueueJob {
  name: string;
  data: BatchWake | DeliveryJobData;
}

/**
 * The delivery queue's jobs and dispatch's wake-ups (worker side), each handed to its subscription's
 * lane (WebhookLane: one per subscription seen by this process, holding all it knows of it at run time).
 * A wake-up runs or joins the lane's batch loop; a `deliver` job is one attempt through the pipeline,
 * parked when its subscription is saturated (before any query) or turns out busy, and whose result may
 * hand the lane the next delivery of its order.
 */
@Injectable()
export class WebhookBatches {
  private readonly logger = new Logger(WebhookBatches.name);
  private readonly lanes = new Map<string, WebhookLane>();
  private readonly parts: LaneParts;
  private stopping = false;

  constructor(
    private readonly pipeline: WebhookAttemptPipeline,
    claims: WebhookClaims,
    private readonly admission: WebhookAdmission,
    private readonly queue: WebhookQueue,
  ) {
    this.parts = { pipeline, claims, admission, queue, logger: this.logger, stopping: () => this.stopping };
  }

  /** One job of the delivery queue: a wake-up for its subscription's lane, or a single attempt. */
  async runJob(job: DeliveryQueueJob): Promise<JobResult> {
    if (job.name === BATCH_JOB) {
      const wake = job.data as BatchWake;
      return this.lane(wake.accountId, wake.subscriptionId).run(wake);
    }
    const data = job.data as DeliveryJobData;
    const { subscriptionId } = data;
    if (subscriptionId && this.admission.isSaturated(subscriptionId))
      return { kind: 'parked', delayMs: this.admission.parkDelayMs(subscriptionId) };
    const result = await this.pipeline.attempt(data);
    if (result.kind === 'busy') return { kind: 'parked', delayMs: this.admission.parkDelayMs(result.subscriptionId) };
    if (result.kind === 'attempted' && result.order) this.ordersMoved([result.order]);
    return { kind: 'done' };
  }

  /** The worker is closing: lanes stop claiming (what they started finishes; the rest is due for others). */
  stop(): void {
    this.stopping = true;
  }

  /**
   * Deliveries committed for these subscriptions are due (dispatch, in this worker, right after its
   * commit): each goes to its lane here, without a queue hand-over (the latency of a first attempt). A
   * lane that ends parked, or fails, leaves a wake job behind; a worker killed meanwhile leaves its due
   * deliveries to the sweep (overdue), as a lost enqueue always did. Closing, they go to wake jobs.
   */
  async wake(wakes: BatchWake[]): Promise<void> {
    if (this.stopping) return this.queue.enqueueBatches(wakes);
    const now = Date.now();
    for (const wake of wakes) this.lane(wake.accountId, wake.subscriptionId).wake(wake, now);
  }

  /** Heads of orders that ended (a retry's job, the sweep's recovery of lost attempts): their lanes go on with the next. */
  ordersMoved(orders: OrderStep[]): void {
    for (const order of orders) this.lane(order.ended.accountId, order.ended.subscriptionId).orderMoved(order);
  }

  private lane(accountId: string, subscriptionId: string): WebhookLane {
    let lane = this.lanes.get(subscriptionId);
    if (!lane) {
      lane = new WebhookLane(accountId, subscriptionId, this.parts);
      this.lanes.set(subscriptionId, lane);
    }
    return lane;
  }
}
