import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchWake, WebhookQueue } from '../webhook-queue.service';
import { batchClaimSize, BATCH_MAX, loopEnds, mergeFrom } from './webhook-batch.rules';
import { DeliveryWork, WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookPacing } from './webhook-pacing.service';

/** A subscription's loop running in this process: where its claims start, and whether a wake-up arrived during the last claim. */
interface Loop {
  fromId: string;
  woken: boolean;
}

/** How a batch's starts ended: all started, or stopped (the subscription busy here, or its secret not opening). */
type Started = 'all' | 'busy' | 'unsignable';

/** What a wake job does next: nothing (done, or handed to the loop running here), or parked for a while. */
export type WakeResult = { kind: 'done' } | { kind: 'parked'; delayMs: number };

/**
 * The delivery engine's hot path (issue 23): a subscription's due attempts go out in batches. A wake-up
 * (a queue job, or dispatch in this process) runs the subscription's loop: claim up to BATCH_MAX due
 * attempts in one statement, start their POSTs in id order (so first attempts leave in event order)
 * within the subscription's concurrency and pacing, and claim the next batch while the last ones run;
 * the records of concurrent attempts share statements (WebhookDeliveryService). One loop per
 * subscription per process: a wake-up arriving while it runs joins it instead of queueing a job.
 * A subscription whose receiver is slow (its slots full, the wait past its budget) gives back what it
 * claimed and has not started, and its wake job is parked (moved to delayed), not holding a worker slot.
 */
@Injectable()
export class WebhookBatches {
  private readonly logger = new Logger(WebhookBatches.name);
  private readonly loops = new Map<string, Loop>();
  /** Subscriptions whose wake job this process parked, until when: wake-ups meanwhile are that job's. */
  private readonly parked = new Map<string, number>();
  /** The pacing rate last seen per subscription (claims of a paced subscription hold about a second of turns). */
  private readonly rates = new Map<string, number | null>();
  private stopping = false;

  constructor(
    private readonly deliveries: WebhookDeliveryService,
    private readonly pacing: WebhookPacing,
    private readonly queue: WebhookQueue,
  ) {}

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
      } else if ((this.parked.get(wake.subscriptionId) ?? 0) < now) this.runHere(wake);
    }
    await this.queue.enqueueBatches(queued);
  }

  /** Runs a subscription's loop outside any job; what it cannot finish goes to a wake job. */
  private runHere(wake: BatchWake): void {
    void this.run(wake).then(
      (result) => (result.kind === 'parked' ? this.queue.enqueueBatches([wake], result.delayMs) : undefined),
      (error: Error) => {
        this.logger.warn(`the batch of ${wake.subscriptionId} failed, left to a wake job: ${error.message}`);
        return this.queue.enqueueBatches([wake], 1_000);
      },
    );
  }

  /** A wake job: runs the subscription's loop here (until nothing is due), joins the one running, or parks. */
  async run(wake: BatchWake): Promise<WakeResult> {
    this.parked.delete(wake.subscriptionId);
    const running = this.loops.get(wake.subscriptionId);
    if (running) {
      running.woken = true;
      running.fromId = mergeFrom(running.fromId, wake.fromId);
      return { kind: 'done' };
    }
    const loop: Loop = { fromId: wake.fromId, woken: false };
    this.loops.set(wake.subscriptionId, loop);
    const sends = new Set<Promise<unknown>>();
    let ended: Started = 'all';
    try {
      for (;;) {
        if (this.stopping) break;
        loop.woken = false;
        const size = batchClaimSize({
          room: this.deliveries.room(wake.subscriptionId, BATCH_MAX),
          ratePerSecond: this.rates.get(wake.subscriptionId) ?? null,
        });
        if (size === 0) {
          ended = 'busy';
          break;
        }
        const { works, claimed } = await this.deliveries.claimDue(
          { accountId: wake.accountId, id: wake.subscriptionId },
          loop.fromId,
          size,
        );
        if (works[0]) this.rates.set(wake.subscriptionId, works[0].subscription.rateLimitPerSecond ?? null);
        ended = await this.start(works, sends);
        // (No await between this check and the loop's removal in finally: a wake-up sees the loop or none.)
        if (ended !== 'all' || loopEnds(claimed, size, loop.woken)) break;
      }
    } finally {
      this.loops.delete(wake.subscriptionId);
    }
    if (ended === 'busy') {
      // What started goes on (the worker waits for it at shutdown); the wake job comes back later.
      const delayMs = this.deliveries.parkDelayMs(wake.subscriptionId);
      this.parked.set(wake.subscriptionId, Date.now() + delayMs);
      return { kind: 'parked', delayMs };
    }
    await Promise.allSettled([...sends]);
    return { kind: 'done' };
  }

  /**
   * Starts a claimed batch in order: each attempt at its pacing turn, then as one of its subscription's
   * slots frees up (within the wait budget). What cannot start now is given back, due again at once.
   */
  private async start(works: DeliveryWork[], sends: Set<Promise<unknown>>): Promise<Started> {
    let turns: number[] = [];
    for (let i = 0; i < works.length; i++) {
      const work = works[i];
      const ready = this.deliveries.prepare(work);
      if (ready.kind === 'stopped') {
        this.track(sends, ready.result);
        continue;
      }
      if (ready.kind === 'unsignable') {
        await this.deliveries.releaseClaims(works.slice(i));
        return 'unsignable';
      }
      if (turns.length === 0) turns = await this.pacing.turns(work, works.length - i);
      const wait = turns.shift()! - Date.now();
      if (wait > 0) await sleep(wait);
      const release = await this.deliveries.acquireSlot(work.subscriptionId);
      if (!release) {
        await this.deliveries.releaseClaims(works.slice(i));
        return 'busy';
      }
      this.track(sends, this.deliveries.sendClaimed(work, ready.signing, release));
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
