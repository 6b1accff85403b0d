import { Injectable, Logger } from '@nestjs/common';
import { DeliveryWork } from '../../webhook-delivery.row';
import { BATCH_JOB, BatchWake, DeliveryJobData, WebhookQueue } from '../../webhook-queue.service';
import { WebhookAdmission } from '../admission/webhook-admission.service';
import { WebhookClaims } from '../claims/webhook-claims.service';
import { WebhookAttemptPipeline } from '../pipeline/webhook-attempt-pipeline.service';
import { batchClaimSize, BATCH_MAX, loopEnds, mergeFrom } from './webhook-batch.rules';
import { claimSpans } from '../webhook-spans';

/** A subscription's loop running in this process: where its claims start, and whether a wake-up arrived during the last claim. */
interface Loop {
  fromId: string;
  woken: boolean;
  /** Claims look for the head of the subscription's order too (a wake-up said so, or a claimed row). */
  ordered: boolean;
}

/** An ordered subscription's head blocked for a moment (its event not in the feed yet) is looked at again after this, doubling up to the cap. */
const BLOCKED_RECHECK_MS = 10;
const BLOCKED_RECHECK_MAX_MS = 1_000;

/** How a batch's starts ended: all started, or stopped (the subscription busy here, or its secret not opening). */
type Started = 'all' | 'busy' | 'unsignable';

/** A job of the delivery queue: a subscription's wake-up (named BATCH_JOB), or one attempt (`deliver`). */
export interface DeliveryQueueJob {
  name: string;
  data: BatchWake | DeliveryJobData;
}

/** What a job does next: nothing (done, or handed to the loop running here), or parked for a while. */
export type JobResult = { kind: 'done' } | { kind: 'parked'; delayMs: number };

/**
 * The delivery queue's jobs (worker side). The engine's hot path (issue 23): a subscription's due attempts
 * go out in batches. A wake-up (a queue job, or dispatch in this process) runs the subscription's loop:
 * claim up to BATCH_MAX due attempts in one statement (WebhookClaims), start them in id order (so first
 * attempts leave in event order), each through the attempt pipeline within the subscription's concurrency
 * and pacing (WebhookAdmission), and claim the next batch while the last ones run; the records of
 * concurrent attempts share statements. One loop per subscription per process: a wake-up arriving while
 * it runs joins it instead of queueing a job. A subscription whose receiver is slow (its slots full, the
 * wait past its budget) gives back what it claimed and has not started, and its wake job is parked (moved
 * to delayed), not holding a worker slot. A `deliver` job is one attempt through the same pipeline.
 */
@Injectable()
export class WebhookBatches {
  private readonly logger = new Logger(WebhookBatches.name);
  private readonly loops = new Map<string, Loop>();
  /** Subscriptions whose wake job this process parked, until when: wake-ups meanwhile are that job's. */
  private readonly parked = new Map<string, number>();
  /** The pacing rate last seen per subscription (claims of a paced subscription hold about a second of turns). */
  private readonly rates = new Map<string, number | null>();
  /** Subscriptions last seen ordered (a wake-up said so, or a claimed row): their claims look for the head. */
  private readonly ordered = new Set<string>();
  /** Ordered subscriptions whose head is blocked for a moment: the next re-check's delay. */
  private readonly blocked = new Map<string, number>();
  private stopping = false;

  constructor(
    private readonly pipeline: WebhookAttemptPipeline,
    private readonly claims: WebhookClaims,
    private readonly admission: WebhookAdmission,
    private readonly queue: WebhookQueue,
  ) {
    // The end of an ordered subscription's head lets the next one go at once: its loop runs here.
    pipeline.onOrderAdvanced((wake) => this.wake([wake]));
  }

  /**
   * One job: a wake-up runs (or joins) its subscription's loop; an attempt goes through the pipeline, its
   * job parked when its subscription is saturated (before any query) or turns out busy.
   */
  async run(job: DeliveryQueueJob): Promise<JobResult> {
    if (job.name === BATCH_JOB) return this.runLoop(job.data as BatchWake);
    const data = job.data as DeliveryJobData;
    const { subscriptionId } = data;
    if (subscriptionId && this.admission.isSaturated(subscriptionId))
      return { kind: 'parked', delayMs: this.admission.parkDelayMs(subscriptionId) };
    const result = await this.pipeline.attempt(data);
    return result.kind === 'busy' ? { kind: 'parked', delayMs: this.admission.parkDelayMs(result.subscriptionId) } : { kind: 'done' };
  }

  /** The worker is closing: loops stop claiming (what they started finishes; the rest is due for others). */
  stop(): void {
    this.stopping = true;
  }

  /**
   * Deliveries committed for these subscriptions are due (dispatch, in this worker, right after its
   * commit): each joins the loop running here for its subscription, or waits for its parked job, or
   * starts the loop here at once, without a queue hand-over (the latency of a first attempt). A loop that
   * ends parked, or fails, leaves a wake job behind; a worker killed meanwhile leaves its due deliveries
   * to the sweep (overdue), as a lost enqueue always did.
   */
  async wake(wakes: BatchWake[]): Promise<void> {
    const now = Date.now();
    const queued: BatchWake[] = [];
    for (const wake of wakes) {
      const loop = this.loops.get(wake.subscriptionId);
      if (this.stopping) queued.push(wake);
      else if (loop) {
        loop.woken = true;
        loop.fromId = mergeFrom(loop.fromId, wake.fromId);
        this.joinOrdered(loop, wake);
      } else if ((this.parked.get(wake.subscriptionId) ?? 0) < now) this.runHere(wake);
    }
    await this.queue.enqueueBatches(queued);
  }

  /** Runs a subscription's loop outside any job; what it cannot finish goes to a wake job. */
  private runHere(wake: BatchWake): void {
    void this.runLoop(wake).then(
      (result) => (result.kind === 'parked' ? this.queue.enqueueBatches([wake], result.delayMs) : undefined),
      (error: Error) => {
        this.logger.warn(`the batch of ${wake.subscriptionId} failed, left to a wake job: ${error.message}`);
        return this.queue.enqueueBatches([wake], 1_000);
      },
    );
  }

  /** A wake-up: runs the subscription's loop here (until nothing is due), joins the one running, or parks. */
  private async runLoop(wake: BatchWake): Promise<JobResult> {
    this.parked.delete(wake.subscriptionId);
    const running = this.loops.get(wake.subscriptionId);
    if (running) {
      running.woken = true;
      running.fromId = mergeFrom(running.fromId, wake.fromId);
      this.joinOrdered(running, wake);
      return { kind: 'done' };
    }
    // A wake-up saying unordered (ordered turned off): its deliveries left the order, a plain claim takes them.
    if (wake.ordered) this.ordered.add(wake.subscriptionId);
    else if (wake.ordered === false) this.ordered.delete(wake.subscriptionId);
    const loop: Loop = { fromId: wake.fromId, woken: false, ordered: this.ordered.has(wake.subscriptionId) };
    let headClaimed = false;
    this.loops.set(wake.subscriptionId, loop);
    const sends = new Set<Promise<unknown>>();
    let ended: Started = 'all';
    try {
      for (;;) {
        if (this.stopping) break;
        loop.woken = false;
        const size = batchClaimSize({
          room: this.admission.room(wake.subscriptionId, BATCH_MAX),
          ratePerSecond: this.rates.get(wake.subscriptionId) ?? null,
        });
        if (size === 0) {
          ended = 'busy';
          break;
        }
        const subscription = { accountId: wake.accountId, id: wake.subscriptionId };
        const claimedAt = performance.now();
        const { works, claimed } = await this.claims.claimDue(subscription, loop.fromId, size, loop.ordered);
        claimSpans(works, claimedAt);
        if (works[0]) this.rates.set(wake.subscriptionId, works[0].subscription.rateLimitPerSecond ?? null);
        if (works[0]) this.learnOrdered(wake.subscriptionId, works[0].subscription.ordered === true, loop);
        headClaimed = works.some((work) => work.inOrder);
        if (headClaimed) this.blocked.delete(wake.subscriptionId);
        ended = await this.start(works, sends);
        // (No await between this check and the loop's removal in finally: a wake-up sees the loop or none.)
        if (ended !== 'all' || loopEnds(claimed, size, loop.woken)) break;
      }
    } finally {
      this.loops.delete(wake.subscriptionId);
    }
    if (ended === 'busy') {
      // What started goes on (the worker waits for it at shutdown); the wake job comes back later.
      const delayMs = this.admission.parkDelayMs(wake.subscriptionId);
      this.parked.set(wake.subscriptionId, Date.now() + delayMs);
      return { kind: 'parked', delayMs };
    }
    if (loop.ordered && !headClaimed && ended === 'all' && !this.stopping) await this.recheckHead(wake);
    await Promise.allSettled([...sends]);
    return { kind: 'done' };
  }

  /** A wake-up joining a running loop: ordered or not as it says (ordered turned on or off), else as the loop was. */
  private joinOrdered(loop: Loop, wake: BatchWake): void {
    if (wake.ordered === undefined) return;
    loop.ordered = wake.ordered;
    if (wake.ordered) this.ordered.add(wake.subscriptionId);
    else this.ordered.delete(wake.subscriptionId);
  }

  /** What a claimed row says of its subscription: ordered (its loops look for the head from now on) or not. */
  private learnOrdered(subscriptionId: string, ordered: boolean, loop: Loop): void {
    if (ordered) this.ordered.add(subscriptionId);
    else this.ordered.delete(subscriptionId);
    loop.ordered ||= ordered;
  }

  /**
   * An ordered subscription's loop ended without its head: in flight or not due, its end or its retry's
   * job wakes it; blocked for a moment (its event not in the feed yet, or one before it not dispatched),
   * it is looked at again shortly, backing off while that lasts.
   */
  private async recheckHead(wake: BatchWake): Promise<void> {
    if ((await this.claims.headState(wake.subscriptionId)) !== 'blocked') {
      this.blocked.delete(wake.subscriptionId);
      return;
    }
    const delayMs = this.blocked.get(wake.subscriptionId) ?? BLOCKED_RECHECK_MS;
    this.blocked.set(wake.subscriptionId, Math.min(delayMs * 2, BLOCKED_RECHECK_MAX_MS));
    setTimeout(() => void this.wake([{ ...wake, ordered: true }]), delayMs).unref();
  }

  /**
   * Starts a claimed batch in order, each attempt through the pipeline (at its pacing turn, then as one of
   * its subscription's slots frees up, within the wait budget). What cannot start now is given back, due
   * again at once.
   */
  private async start(works: DeliveryWork[], sends: Set<Promise<unknown>>): Promise<Started> {
    const turns = this.admission.forBatch(works);
    for (let i = 0; i < works.length; i++) {
      const start = await this.pipeline.start(works[i], turns);
      if (start.kind === 'refused') {
        await this.claims.release(works.slice(i + 1));
        return start.reason;
      }
      this.track(sends, start.result);
    }
    return 'all';
  }

  private track(sends: Set<Promise<unknown>>, sending: Promise<unknown>): void {
    const settled = sending
      .catch((error: Error) => this.logger.warn(`a batched attempt failed to record (the sweep settles it): ${error.message}`))
      .finally(() => sends.delete(settled));
    sends.add(settled);
  }
}
