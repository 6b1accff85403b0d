import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { UnitOfWork } from '../../../../platform/database/unit-of-work';
import { newId } from '../../../../platform/ids/ids';
import { WebhookQueue } from '../../webhook-queue.service';
import { ReplayCursor, WebhookReplaysRepository } from '../../webhook-replays.repository';
import { WebhookReplayEntity } from '../../webhook-replay.entity';
import { WebhookSubscriptionsRepository } from '../../webhook-subscriptions.repository';
import { dueTimes } from '../../replay/webhook-replay.rules';
import { ReplayScope, WebhookReplaySelector } from '../../replay/webhook-replay-selector';
import { WebhookAdmission } from '../admission/webhook-admission.service';
import { AttemptResult, Retries, WebhookAttemptPipeline } from '../pipeline/webhook-attempt-pipeline.service';
import { WEBHOOK_IDS } from '../../webhooks.ids';

/** Events read per batch at most (fewer when the rate is lower: a batch is about a second of deliveries). */
const MAX_BATCH = 100;
/**
 * A replayed delivery is due (next_retry_at) this long after the runner means to send it: the sweep sends
 * it only if the runner is gone (a resumed run sends the open batch's unsent deliveries first).
 */
const SWEEP_GRACE_MS = 60_000;
/** How long the runner waits for a busy subscription before leaving an attempt to the queue. */
const BUSY_WAIT_MS = 5_000;
/**
 * How often an ordered subscription's replay looks whether a delivery it did not see end has ended: one an
 * interrupted run left retrying, or one whose attempt another run holds (a manual retry). Its own
 * deliveries' retries it runs itself, and sees end.
 */
const ENDED_POLL_MS = 100;

export type ReplayRunEnd = 'completed' | 'stopped' | 'gone' | 'interrupted';

/**
 * Runs a replay (worker side, issue 13): reads its window in feed order a batch at a time and, in ONE
 * transaction per batch, opens the batch's deliveries and moves the replay's cursor past it, so a run
 * interrupted anywhere and resumed emits each delivery once. It then sends the batch's first attempts
 * itself, one after another in event order, paced at WEBHOOK_REPLAY_RATE_PER_SECOND (through the
 * attempt pipeline: claim, sign, POST, record; retries go through the queue as usual). A resumed run
 * first sends what the interrupted one opened and did not send. On an ordered subscription (issue 31) each
 * replayed delivery is sent only once the one before it has ended (delivered, or failed for good after its
 * retries, which the run attempts itself when they are due: Retries 'caller'): the window goes in order,
 * one at a time (beside the subscription's live order, not inside it).
 */
@Injectable()
export class WebhookReplayRunner {
  private readonly logger = new Logger(WebhookReplayRunner.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly replays: WebhookReplaysRepository,
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly selector: WebhookReplaySelector,
    private readonly pipeline: WebhookAttemptPipeline,
    private readonly admission: WebhookAdmission,
    private readonly queue: WebhookQueue,
  ) {}

  /** Runs the replay until it ends or `signal` aborts (the worker stops: the job is resumed elsewhere). */
  async run(replayId: string, signal?: AbortSignal): Promise<ReplayRunEnd> {
    const replay = await this.replays.findById(replayId);
    if (!replay || replay.status !== 'running') return 'gone';
    const rate = this.config.webhook.replayRatePerSecond;
    const batchSize = Math.max(1, Math.min(MAX_BATCH, rate));
    const scope: ReplayScope = { ...replay };
    const pace = { lastStart: 0 };
    let nextSlot = Date.now();

    // What an interrupted run opened and did not send goes first, in event order (ordered: after what it left retrying).
    const ordered = (await this.subscriptions.find(replay.accountId, replay.subscriptionId))?.ordered === true;
    if (ordered) await this.untilEnded(replay.accountId, { replayId }, signal);
    const leftover = await this.replays.unsent(replay.accountId, replayId);
    nextSlot = await this.send(replay, leftover, dueTimes(leftover.length, rate, nextSlot), pace, signal, ordered);

    let cursor: ReplayCursor | undefined =
      replay.cursorTxId && replay.cursorId ? { txId: replay.cursorTxId, id: replay.cursorId } : undefined;
    for (;;) {
      if (signal?.aborted) return 'interrupted';
      const context = { accountId: replay.accountId, requestId: `replay_${replayId}`, clientRequestId: `replay_${replayId}` };
      const batch = await this.uow.run(context, async ({ manager }) => {
        const current = await this.replays.find(replay.accountId, replay.subscriptionId, replayId, manager, true);
        if (!current || current.status !== 'running') return { kind: 'end' as const, end: 'gone' as const };
        // Another run moved on meanwhile (this job ran twice): it owns the replay now.
        if (current.cursorId !== (cursor?.id ?? null)) return { kind: 'end' as const, end: 'gone' as const };
        const subscription = await this.subscriptions.find(replay.accountId, replay.subscriptionId, manager);
        if (!subscription) return { kind: 'end' as const, end: 'gone' as const };
        if (!subscription.enabled) return { kind: 'end' as const, end: 'stopped' as const };
        const selected = await this.selector.next(manager, scope, cursor, batchSize);
        if (!selected.last) return { kind: 'end' as const, end: 'completed' as const };
        const start = Math.max(Date.now(), nextSlot);
        const due = dueTimes(selected.emit.length, rate, start);
        const opened = await this.replays.openForReplay(
          manager,
          replayId,
          selected.emit.map((event, i) => ({
            id: newId(WEBHOOK_IDS.delivery),
            accountId: replay.accountId,
            subscriptionId: replay.subscriptionId,
            eventId: event.id,
            eventName: event.eventName,
            dueAt: new Date(due[i] + SWEEP_GRACE_MS),
          })),
        );
        // An event whose delivery turned pending in between (dispatch, a retry) was not opened: skipped.
        await this.replays.advance(
          manager,
          replayId,
          selected.last,
          opened.length,
          selected.skipped + selected.emit.length - opened.length,
        );
        return { kind: 'batch' as const, opened, start, last: selected.last, exhausted: selected.exhausted, ordered: subscription.ordered };
      });
      if (batch.kind === 'end') {
        if (batch.end !== 'gone') await this.replays.finish(replayId, batch.end);
        return batch.end;
      }
      cursor = batch.last;
      const due = dueTimes(batch.opened.length, rate, batch.start);
      nextSlot = await this.send(replay, batch.opened, due, pace, signal, batch.ordered);
      if (batch.exhausted) {
        await this.replays.finish(replayId, 'completed');
        return 'completed';
      }
    }
  }

  /**
   * Sends each delivery's first attempt of this round in order, one at a time, each at its due time and
   * never sooner than one interval after the previous one started (a run that fell behind catches up at
   * the rate, not in a burst); returns the next free slot. Stops early when `signal` aborts (what is left
   * is sent by the resumed run).
   */
  private async send(
    replay: WebhookReplayEntity,
    opened: Array<{ id: string; attemptCount: number }>,
    due: number[],
    pace: { lastStart: number },
    signal?: AbortSignal,
    ordered = false,
  ): Promise<number> {
    const interval = 1000 / this.config.webhook.replayRatePerSecond;
    for (let i = 0; i < opened.length; i++) {
      if (signal?.aborted) break;
      const wait = Math.max(due[i], pace.lastStart + interval) - Date.now();
      if (wait > 0) await sleep(wait);
      pace.lastStart = Date.now();
      if (ordered) await this.sendInOrder(replay.accountId, replay.subscriptionId, opened[i], signal);
      else await this.sendOne(replay.subscriptionId, opened[i]);
    }
    return Math.max(Date.now(), pace.lastStart + interval);
  }

  /**
   * An ordered subscription's replayed delivery, until it has ended: its first attempt, then each retry
   * when due, attempted here (the next delivery waits for this one's end, which the attempts' results
   * say). A run stopping meanwhile leaves the retry to a job; an attempt another run holds (a manual
   * retry), or one left to the queue (a busy subscription), is waited for in the database.
   */
  private async sendInOrder(
    accountId: string,
    subscriptionId: string,
    delivery: { id: string; attemptCount: number },
    signal?: AbortSignal,
  ): Promise<void> {
    let attempt = delivery.attemptCount;
    let previous: string | undefined;
    for (;;) {
      const result = await this.sendOne(subscriptionId, { id: delivery.id, attemptCount: attempt }, previous, 'caller');
      if (result?.kind !== 'attempted' || !result.recorded) return this.untilEnded(accountId, [delivery.id], signal);
      if (result.state.status !== 'pending') return;
      attempt++;
      previous = result.previous;
      const dueAt = Date.now() + result.state.delayMs;
      try {
        await sleep(result.state.delayMs, undefined, { signal });
      } catch {
        // Stopping: the retry goes to a job, due when it would have been sent here.
        await this.queue.enqueueDelivery(delivery.id, { attempt, subscriptionId, delayMs: dueAt - Date.now(), previous });
        return;
      }
    }
  }

  /** Waits until these deliveries (or the replay's attempted ones) are no longer pending, or the run is aborted. */
  private async untilEnded(accountId: string, which: string[] | { replayId: string }, signal?: AbortSignal): Promise<void> {
    while (!signal?.aborted && (await this.replays.stillPending(accountId, which)).length > 0) await sleep(ENDED_POLL_MS);
  }

  /**
   * The delivery's attempt through the pipeline, waiting out a busy subscription a while; undefined when
   * left to the queue. `previous`: the attempt before it (a retry's span links to it); `retries`: who
   * runs the attempt's retry (Retries).
   */
  private async sendOne(
    subscriptionId: string,
    delivery: { id: string; attemptCount: number },
    previous?: string,
    retries: Retries = 'queued',
  ): Promise<AttemptResult | undefined> {
    const job = { deliveryId: delivery.id, attempt: delivery.attemptCount, subscriptionId, previous };
    const giveUpAt = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      try {
        const result = await this.pipeline.attempt(job, retries);
        if (result.kind !== 'busy') return result;
      } catch (error) {
        this.logger.warn(`replayed attempt of ${delivery.id} failed to run, left to the queue: ${(error as Error).message}`);
        break;
      }
      if (Date.now() > giveUpAt) break;
      await sleep(this.admission.parkDelayMs(subscriptionId));
    }
    await this.queue.enqueueDelivery(delivery.id, { attempt: delivery.attemptCount, subscriptionId, previous });
    return undefined;
  }
}
