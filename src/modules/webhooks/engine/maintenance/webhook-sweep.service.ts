import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { EventsService } from '../../../events/events.service';
import { WebhookDeliveriesRepository } from '../../webhook-deliveries.repository';
import { WebhookDispatchService } from '../dispatch/webhook-dispatch.service';
import { WebhookQueue } from '../../webhook-queue.service';
import { CLAIM_LEASE_MS } from '../claims/webhook-claims.service';
import { WebhookAttemptPipeline } from '../pipeline/webhook-attempt-pipeline.service';
import { WebhookBatches } from '../batches/webhook-batches.service';
import { WebhookReplaysRepository } from '../../webhook-replays.repository';

/** Events younger than this are left to the fast path (it normally dispatches within milliseconds). */
export const DISPATCH_GRACE_MS = 2_000;
const EVENT_BATCH = 500;
const MAX_EVENT_BATCHES_PER_RUN = 20;
const OVERDUE_BATCH = 1_000;
/** A running replay not advanced this long has lost its job (Redis lost it, or it failed for good): enqueued again. */
const REPLAY_IDLE_MS = 30_000;
const REPLAY_BATCH = 100;

export interface SweepResult {
  events: number;
  deliveriesCreated: number;
  lostAttempts: number;
  reenqueued: number;
}

/**
 * The safety net behind the fast path (at-least-once): dispatches events nobody dispatched (Redis was
 * down, a process died between commit and enqueue), records attempts whose worker died mid-attempt as
 * lost (their next attempt goes at once), and re-enqueues pending attempts whose job was lost or will
 * not run (WebhookQueue.requeueDue); a job that still waits is left alone.
 */
@Injectable()
export class WebhookSweepService {
  private readonly logger = new Logger(WebhookSweepService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: EventsService,
    private readonly dispatcher: WebhookDispatchService,
    private readonly pipeline: WebhookAttemptPipeline,
    private readonly batches: WebhookBatches,
    private readonly repository: WebhookDeliveriesRepository,
    private readonly queue: WebhookQueue,
    private readonly replays: WebhookReplaysRepository,
  ) {}

  /** `scope` limits the sweep to some accounts (tests that share a database; support tooling). */
  async sweep(scope: { accountIds?: string[] } = {}): Promise<SweepResult> {
    const { accountIds } = scope;
    let events = 0;
    let deliveriesCreated = 0;
    for (let batch = 0; batch < MAX_EVENT_BATCHES_PER_RUN; batch++) {
      const ids = await this.events.undispatchedIds(DISPATCH_GRACE_MS, EVENT_BATCH, accountIds);
      if (ids.length === 0) break;
      events += ids.length;
      deliveriesCreated += await this.dispatcher.dispatch(ids);
      if (ids.length < EVENT_BATCH) break;
    }

    const lost = await this.pipeline.recoverLostAttempts(accountIds);
    const lostAttempts = lost.recorded;
    // A lost head of an order recorded as ended: its lane goes on with the next one.
    this.batches.ordersMoved(lost.orders);

    // Attempts in flight are claimed and left out; a due attempt may still wait in the queue a little,
    // past that slack its job is looked at: added again when gone, replaced when it will not run (finished,
    // or active unclaimed for a claim lease: its worker died), left when it waits.
    const slackMs = Math.max(this.config.webhook.sweepIntervalMs, 1_000);
    const overdue = await this.repository.overdue(slackMs, OVERDUE_BATCH, accountIds);
    const requeued = await this.queue.requeueDue(
      overdue.map((row) => ({ deliveryId: row.id, attempt: row.attemptCount, subscriptionId: row.subscriptionId })),
      CLAIM_LEASE_MS,
    );

    // A replay whose job is gone; re-adding one whose job still exists does nothing (job id = replay id).
    const stalledReplays = await this.replays.stalled(REPLAY_IDLE_MS, REPLAY_BATCH, accountIds);
    await this.queue.enqueueReplays(stalledReplays);

    if (events > 0 || lostAttempts > 0 || requeued.added > 0) {
      this.logger.log(
        `sweep: ${events} undispatched event(s) → ${deliveriesCreated} deliveries; ${lostAttempts} lost attempt(s) recorded; ` +
          `${requeued.added} overdue attempt(s) re-enqueued (${requeued.replaced} replacing a job that would not run)`,
      );
    }
    return { events, deliveriesCreated, lostAttempts, reenqueued: requeued.added };
  }
}
