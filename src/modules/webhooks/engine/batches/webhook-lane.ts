import { Logger } from '@nestjs/common';
import { DeliveryWork } from '../../webhook-delivery.row';
import { BatchWake, WebhookQueue } from '../../webhook-queue.service';
import { WebhookAdmission } from '../admission/webhook-admission.service';
import { WebhookClaims } from '../claims/webhook-claims.service';
import { AttemptResult, OrderStep, WebhookAttemptPipeline } from '../pipeline/webhook-attempt-pipeline.service';
import { claimSpans } from '../webhook-spans';
import { batchClaimSize, BATCH_MAX, loopEnds, mergeFrom } from './webhook-batch.rules';

/** An ordered subscription's head blocked for a moment (its event not in the feed yet) is looked at again after this, doubling up to the cap. */
const BLOCKED_RECHECK_MS = 10;
const BLOCKED_RECHECK_MAX_MS = 1_000;

/** How a batch's starts ended: all started, or stopped (the subscription busy here, or its secret not opening). */
type BatchEnd = 'all' | 'busy' | 'unsignable';

/** What a wake-up's job does next: nothing (done, or handed to the loop running here), or parked for a while. */
export type JobResult = { kind: 'done' } | { kind: 'parked'; delayMs: number };

/** What a lane works with: the engine's steps, and whether the worker is closing. */
export interface LaneParts {
  pipeline: WebhookAttemptPipeline;
  claims: WebhookClaims;
  admission: WebhookAdmission;
  queue: WebhookQueue;
  logger: Logger;
  stopping: () => boolean;
}

/** The claim loop running in a lane: where its claims start, and whether a wake-up arrived during the last claim. */
interface ClaimLoop {
  fromId: string;
  woken: boolean;
}

/**
 * Everything this process holds at run time about one subscription (issue 39): its claim loop, whether
 * its wake job is parked and until when, its pacing rate, whether it is ordered and what its order waits
 * on, and its attempts in flight. WebhookBatches keeps one lane per subscription and asks it.
 *
 * The loop (issue 23): claim up to BATCH_MAX due attempts in one statement (WebhookClaims), start them in
 * id order (first attempts leave in event order), each through the attempt pipeline within the
 * subscription's concurrency and pacing (WebhookAdmission), and claim the next batch while the last ones
 * run. A wake-up arriving while the loop runs joins it. A subscription whose slots are full gives back
 * what it claimed and has not started, and its wake job is parked (delayed), not holding a worker slot.
 *
 * An ordered subscription (issue 31) is claimed with the claim's ordered option: the head of its order,
 * at its turn. Its order is a chain: the record of a head that ended claims the next one in the same
 * statement, and the lane starts that one at once; only a head that was not claimed (none, not due yet,
 * or blocked for a moment) sends the lane back to its loop.
 */
export class WebhookLane {
  private loop?: ClaimLoop;
  /** This process parked the subscription's wake job until then: wake-ups meanwhile are that job's. */
  private parkedUntil = 0;
  /** The pacing rate last seen (claims of a paced subscription hold about a second of turns). */
  private rate: number | null = null;
  /** Last seen ordered (a wake-up said so, or a claimed row): claims take the head of its order. */
  private ordered = false;
  /** Its order waits on a head this lane started: that head's record claims the next one, no claim is needed meanwhile. */
  private headInFlight = false;
  /** Its head is blocked for a moment: the next re-check's delay (0: not blocked). */
  private blockedRecheckMs = 0;
  /** Attempts this lane started that have not settled yet. */
  private inFlight = 0;

  constructor(
    readonly accountId: string,
    readonly subscriptionId: string,
    private readonly parts: LaneParts,
  ) {}

  /**
   * Deliveries committed for this subscription are due (dispatch in this worker, right after its commit):
   * joins the loop running here, or leaves them to the parked job, or to the head in flight whose record
   * claims the next, or runs the loop here at once.
   */
  wake(wake: BatchWake, now: number): void {
    if (this.loop) return this.join(this.loop, wake);
    if (this.parkedUntil >= now) return;
    if (this.headInFlight && this.ordered && wake.ordered) return;
    this.runHere(wake);
  }

  /** A wake job: runs the loop here (until nothing is due), joins the one running, or parks. */
  async run(wake: BatchWake): Promise<JobResult> {
    this.parkedUntil = 0;
    if (this.loop) {
      this.join(this.loop, wake);
      return { kind: 'done' };
    }
    // A wake-up saying unordered (ordered turned off): its deliveries left the order, a plain claim takes them.
    if (wake.ordered !== undefined) this.ordered = wake.ordered;
    const loop: ClaimLoop = { fromId: wake.fromId, woken: false };
    this.loop = loop;
    const sends = new Set<Promise<unknown>>();
    let ended: BatchEnd = 'all';
    let headClaimed = false;
    try {
      for (;;) {
        if (this.parts.stopping()) break;
        loop.woken = false;
        const size = batchClaimSize({ room: this.parts.admission.room(this.subscriptionId, BATCH_MAX), ratePerSecond: this.rate });
        if (size === 0) {
          ended = 'busy';
          break;
        }
        const claimedAt = performance.now();
        const ordered = this.ordered;
        const { works, claimed } = await this.parts.claims.claimDue(
          { accountId: this.accountId, id: this.subscriptionId },
          loop.fromId,
          size,
          ordered,
        );
        claimSpans(works, claimedAt);
        if (works[0]) this.learn(works[0]);
        headClaimed = works.some((work) => work.inOrder);
        if (headClaimed) this.blockedRecheckMs = 0;
        ended = await this.startBatch(works, sends);
        // (No await between this check and the loop's removal in finally: a wake-up sees the loop or none.)
        if (ended !== 'all' || loopEnds(claimed, size, loop.woken)) break;
      }
    } finally {
      this.loop = undefined;
    }
    if (ended === 'busy') {
      // What started goes on (the worker waits for it at shutdown); the wake job comes back later.
      const delayMs = this.parts.admission.parkDelayMs(this.subscriptionId);
      this.parkedUntil = Date.now() + delayMs;
      return { kind: 'parked', delayMs };
    }
    if (this.ordered && !headClaimed && !this.headInFlight && ended === 'all' && !this.parts.stopping()) await this.recheckHead(wake);
    await Promise.allSettled([...sends]);
    return { kind: 'done' };
  }

  /** The next delivery of this lane's order, claimed by the record of the one before it: started at once, or given back when the worker closes. */
  private continueOrder(next: DeliveryWork): void {
    if (this.parts.stopping()) {
      void this.parts.claims.release([next]).catch(() => undefined);
      return;
    }
    this.ordered = true;
    this.blockedRecheckMs = 0;
    this.headInFlight = true;
    void this.startHead(next).then(
      (started) => {
        if (!started) this.headInFlight = false;
      },
      (error: Error) => {
        this.headInFlight = false;
        this.failed(this.wakeOf(next), error);
      },
    );
  }

  /**
   * A head of this lane's order ended (an attempt started here, a retry's job, the sweep's recovery of a
   * lost head): its record claimed the next one, started here at once; or none's turn had come, and the
   * loop looks again (not due, blocked for a moment, or none).
   */
  orderMoved(order: OrderStep): void {
    if (order.next) return this.continueOrder(order.next);
    this.wake({ ...this.wakeOf(order.ended), ordered: true }, Date.now());
  }

  /** Starts a head of the order (one attempt, at its pacing turn); false when refused (its claim given back). */
  private async startHead(work: DeliveryWork): Promise<boolean> {
    const start = await this.parts.pipeline.start(work, this.parts.admission.forBatch([work]));
    if (start.kind === 'refused') {
      if (start.reason === 'busy') this.park(this.wakeOf(work));
      return false;
    }
    void this.track(work, start.result); // (track never rejects: a failed record is logged there)
    return true;
  }

  /** A wake-up joining the running loop: claims from the lower id, ordered or not as it says (a toggle), else as before. */
  private join(loop: ClaimLoop, wake: BatchWake): void {
    loop.woken = true;
    loop.fromId = mergeFrom(loop.fromId, wake.fromId);
    if (wake.ordered !== undefined) this.ordered = wake.ordered;
  }

  /** What a claimed row says of its subscription: its pacing rate, and whether it is ordered. */
  private learn(work: DeliveryWork): void {
    this.rate = work.subscription.rateLimitPerSecond ?? null;
    this.ordered = work.subscription.ordered === true;
  }

  /** Runs the loop outside any job; what it cannot finish goes to a wake job. */
  private runHere(wake: BatchWake): void {
    void this.run(wake).then(
      (result) => (result.kind === 'parked' ? this.parts.queue.enqueueBatches([wake], result.delayMs) : undefined),
      (error: Error) => this.failed(wake, error),
    );
  }

  /** The subscription is busy here: its wake job comes back after about one of its calls. */
  private park(wake: BatchWake): void {
    const delayMs = this.parts.admission.parkDelayMs(this.subscriptionId);
    this.parkedUntil = Date.now() + delayMs;
    void this.parts.queue.enqueueBatches([wake], delayMs);
  }

  private failed(wake: BatchWake, error: Error): void {
    this.parts.logger.warn(`the batch of ${this.subscriptionId} failed, left to a wake job: ${error.message}`);
    void this.parts.queue.enqueueBatches([wake], 1_000);
  }

  /**
   * The loop ended without its order's head: in flight or not due, its end or its retry's job moves it;
   * blocked for a moment (its event not in the feed yet, or one before it not dispatched), it is looked at
   * again shortly, backing off while that lasts.
   */
  private async recheckHead(wake: BatchWake): Promise<void> {
    if ((await this.parts.claims.headState(this.subscriptionId)) !== 'blocked') {
      this.blockedRecheckMs = 0;
      return;
    }
    const delayMs = this.blockedRecheckMs || BLOCKED_RECHECK_MS;
    this.blockedRecheckMs = Math.min(delayMs * 2, BLOCKED_RECHECK_MAX_MS);
    setTimeout(() => this.wake({ ...wake, ordered: true }, Date.now()), delayMs).unref();
  }

  /**
   * Starts a claimed batch in order, each attempt through the pipeline (at its pacing turn, then as one of
   * its subscription's slots frees up, within the wait budget). What cannot start now is given back, due
   * again at once.
   */
  private async startBatch(works: DeliveryWork[], sends: Set<Promise<unknown>>): Promise<BatchEnd> {
    const turns = this.parts.admission.forBatch(works);
    for (let i = 0; i < works.length; i++) {
      const start = await this.parts.pipeline.start(works[i], turns);
      if (start.kind === 'refused') {
        await this.parts.claims.release(works.slice(i + 1));
        return start.reason;
      }
      if (works[i].inOrder) this.headInFlight = true;
      const settled = this.track(works[i], start.result);
      sends.add(settled);
      void settled.finally(() => sends.delete(settled));
    }
    return 'all';
  }

  /** Counts a started attempt in flight until it settles; a head's result moves the order on. */
  private track(work: DeliveryWork, result: Promise<AttemptResult>): Promise<unknown> {
    this.inFlight++;
    return result.then(
      (outcome) => {
        this.inFlight--;
        if (!work.inOrder) return;
        this.headInFlight = false;
        if (outcome.kind === 'attempted' && outcome.order) this.orderMoved(outcome.order);
      },
      (error: Error) => {
        this.inFlight--;
        if (work.inOrder) this.headInFlight = false;
        this.parts.logger.warn(`a batched attempt failed to record (the sweep settles it): ${error.message}`);
      },
    );
  }

  private wakeOf(work: Pick<DeliveryWork, 'id'>): BatchWake {
    return { accountId: this.accountId, subscriptionId: this.subscriptionId, fromId: work.id };
  }
}
