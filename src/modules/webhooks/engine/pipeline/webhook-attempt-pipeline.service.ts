import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { DeliveryRow, DeliveryWork } from '../../webhook-delivery.row';
import { DeliveryJobData, WebhookQueue } from '../../webhook-queue.service';
import { Release, Turns, WebhookAdmission } from '../admission/webhook-admission.service';
import { DroppedReason } from '../claims/webhook-claim.rules';
import { WebhookClaims } from '../claims/webhook-claims.service';
import { DeliverySigning, DeliverySigningSecrets } from '../sending/delivery-signing-secrets';
import { SUBSCRIPTION_DISABLED_MESSAGE } from '../../subscriptions/webhook-subscription.rules';
import { AttemptReport, LOST_ATTEMPT_MESSAGE } from '../sending/webhook-delivery.rules';
import type { SentAttempt } from '../sending/webhook-poster';
import { WebhookDestinations } from '../sending/webhook-destination';
import { AttemptClaim } from '../settlement/webhook-attempts.repository';
import { WebhookAttemptRecords } from '../settlement/webhook-attempt-records.service';
import { NextDeliveryState, settleAttempt } from '../settlement/webhook-backoff.rules';
import { tracing, SpanHandle } from '../../../../platform/tracing/tracing';
import { attemptOutcome, claimSpans, tracedAttempt } from '../webhook-spans';

/** Time for running attempts to record their outcome once their POST ended, at shutdown (the delivery queue's close waits as long). */
export const RECORD_WITHIN_MS = 2_000;

export type AttemptResult =
  /** Nothing to do (see DroppedReason). */
  | { kind: 'dropped'; reason: DroppedReason }
  /** The subscription already has its share of concurrent calls: try this job again shortly. */
  | { kind: 'busy'; subscriptionId: string }
  /**
   * Attempted (or stopped): `recorded` false when another run of the same attempt recorded it first.
   * `order`: the attempt ended its delivery's place in its subscription's order (OrderStep). `previous`:
   * the attempt's trace context, for the retry a caller runs itself (Retries) to link to.
   */
  | { kind: 'attempted'; state: NextDeliveryState; recorded: boolean; order?: OrderStep; previous?: string };

/**
 * A delivery that ended its place in its subscription's order, and the next one in that order claimed
 * with its record (undefined: none whose turn has come): the caller hands it to the subscription's lane.
 */
export interface OrderStep {
  ended: Pick<DeliveryRow, 'id' | 'accountId' | 'subscriptionId'>;
  next: DeliveryWork | undefined;
}

/**
 * How a claimed attempt's start went: started (or stopped without a POST), its result to come; or
 * refused, its claim given back (its subscription busy, or its secret not opening).
 */
export type Start = { kind: 'started'; result: Promise<AttemptResult> } | { kind: 'refused'; reason: 'busy' | 'unsignable' };

/**
 * Who runs an attempt's retry: a delayed `deliver` job (the default), or the caller, which waits for it and
 * attempts it itself (an ordered replay, which sends its next delivery once this one has ended). A caller that
 * goes away leaves the retry due in the database: the sweep sends it, overdue.
 */
export type Retries = 'queued' | 'caller';

const DISABLED_REPORT: AttemptReport = {
  outcome: 'fatal',
  responseCode: null,
  responseSnippet: null,
  errorMessage: SUBSCRIPTION_DISABLED_MESSAGE,
};
const LOST_REPORT: AttemptReport = { outcome: 'lost', responseCode: null, responseSnippet: null, errorMessage: LOST_ATTEMPT_MESSAGE };

/**
 * The attempt pipeline (worker side), the one path of every attempt, batched or alone:
 *
 *   claim → prepare → admit → send → settle → record → schedule the next
 *
 * Each step has one owner, called once: the claim (WebhookClaims: claimed alone here, or with its
 * subscription's batch by WebhookBatches), prepare (the subscription still enabled, its secrets opened:
 * DeliverySigningSecrets), admit (its pacing turn and one of its subscription's slots: WebhookAdmission),
 * send (to the subscription's destination, WebhookDestinations: the URL checked again, signed, POSTed by
 * WebhookPoster, or published to RabbitMQ and confirmed by AmqpPublisher), settle (the delivery's next state:
 * settleAttempt), record (with the failure counter, guarded by the claim: WebhookAttemptRecords) and
 * schedule (the next attempt's job: WebhookQueue). The claim makes each attempt go out once: a job run
 * again finds it claimed or recorded, and an attempt whose worker died is recorded as lost (below) once
 * its claim runs out, then sent again as the next attempt (never with the same webhook-retry-count).
 */
@Injectable()
export class WebhookAttemptPipeline implements BeforeApplicationShutdown {
  /** Attempts being sent or recorded (shutdown waits for them). */
  private readonly sending = new Set<Promise<AttemptResult>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly claims: WebhookClaims,
    private readonly signing: DeliverySigningSecrets,
    private readonly admission: WebhookAdmission,
    private readonly destinations: WebhookDestinations,
    private readonly records: WebhookAttemptRecords,
    private readonly queue: WebhookQueue,
  ) {}

  /**
   * After the workers closed (QueueShutdown), so attempts still running at shutdown keep their claims;
   * attempts a parked batch left running are waited for too (up to the request time-out and 2 s to record).
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.sending.size > 0) {
      const bound = sleep(this.config.webhook.timeoutMs + RECORD_WITHIN_MS, undefined, { ref: false });
      await Promise.race([Promise.allSettled([...this.sending]), bound]);
    }
    this.claims.stop();
  }

  /**
   * One attempt of a queue job (a retry, a test delivery, POST …/retry, the sweep's re-send, a replay's
   * send), start to end: claimed (a job whose attempt is finished, stale or held by another run is
   * dropped), then the rest of the pipeline, its pacing turn found alone.
   */
  async attempt(job: DeliveryJobData, retries: Retries = 'queued'): Promise<AttemptResult> {
    const began = performance.now();
    const claimed = await this.claims.claim(job);
    if ('dropped' in claimed) return { kind: 'dropped', reason: claimed.dropped };
    claimSpans([claimed.work], began);
    const start = await this.start(claimed.work, this.admission.alone(), job.previous, retries);
    if (start.kind === 'started') return start.result;
    return start.reason === 'busy'
      ? { kind: 'busy', subscriptionId: claimed.work.subscriptionId }
      : { kind: 'dropped', reason: 'unsignable' };
  }

  /**
   * A claimed attempt from prepare on: resolves once it has started (its POST under way, or, its
   * subscription disabled, stopped without one) with its result to come, or was refused, its claim
   * given back. `turns` are where its pacing turn comes from (alone, or its batch's); `previous` is the
   * trace context of the attempt before it (a retry's job carries it), linked from this one's span.
   */
  async start(work: DeliveryWork, turns: Turns, previous?: string, retries: Retries = 'queued'): Promise<Start> {
    const began = performance.now();
    if (!work.subscription.enabled) {
      // Disabled (by the owner or auto-disabled): pending deliveries stop here and never count.
      const stopped = { report: DISABLED_REPORT, at: new Date(), durationMs: 0 };
      const result = tracedAttempt(work, began, previous, (span) => this.finish(work, stopped, 'held', true, span, retries));
      return { kind: 'started', result: result.finally(() => this.claims.settled(work.id)) };
    }
    const signing = this.signing.forDelivery(work);
    if (!signing) return this.refuse(work, 'unsignable');
    let release: Release | null;
    try {
      release = await this.admission.admit(work, turns);
    } catch (error) {
      await this.claims.release([work]);
      throw error;
    }
    if (!release) return this.refuse(work, 'busy');
    const sending = tracedAttempt(work, began, previous, (span) => this.sendAndFinish(work, signing, release, span, retries));
    this.sending.add(sending);
    void sending.catch(() => undefined).finally(() => this.sending.delete(sending));
    return { kind: 'started', result: sending };
  }

  /**
   * Attempts whose claim ran out with nobody recording them (their worker died, or could not reach the
   * database): each is recorded as a failed attempt of unknown outcome, and the next one is sent at once
   * while retries remain. Returns how many were recorded, and the orders whose head this ended (for their lanes).
   */
  async recoverLostAttempts(accountIds?: string[]): Promise<{ recorded: number; orders: OrderStep[] }> {
    const lost = await this.claims.lost(accountIds);
    const results = await Promise.all(
      lost.map(({ row, inFlightSince }) => this.finish(row, { report: LOST_REPORT, at: inFlightSince, durationMs: null }, 'expired', true)),
    );
    const attempted = results.flatMap((result) => (result.kind === 'attempted' && result.recorded ? [result] : []));
    return { recorded: attempted.length, orders: attempted.flatMap((result) => (result.order ? [result.order] : [])) };
  }

  /** Gives the claim of an attempt that will not be sent now back (due again at once). */
  private async refuse(work: DeliveryWork, reason: 'busy' | 'unsignable'): Promise<Start> {
    await this.claims.release([work]);
    return { kind: 'refused', reason };
  }

  /** Sends an admitted attempt holding one of its subscription's slots (`release` frees it once the POST ended), then finishes it. */
  private async sendAndFinish(
    work: DeliveryWork,
    signing: DeliverySigning,
    release: Release,
    span: SpanHandle,
    retries: Retries,
  ): Promise<AttemptResult> {
    try {
      let sent: SentAttempt;
      try {
        // The attempt's span is the POST's: the receiver gets it as its parent only if the subscription asks.
        const traceparent = work.subscription.traceContext ? span.traceparent : null;
        sent = await span.runUntraced(() => this.destinations.for(work).send(work, signing, traceparent));
      } finally {
        release();
      }
      attemptOutcome(span, sent);
      return await this.finish(work, sent, 'held', false, span, retries);
    } finally {
      this.claims.settled(work.id);
    }
  }

  /**
   * Settles the attempt (its delivery's next state), records it (`claim`: the claim it settles;
   * `uncounted`: not the receiver's failure, never counting towards auto-disable) and schedules the
   * next attempt, if any (`span`: the attempt's, which the next one links to).
   */
  private async finish(
    work: DeliveryRow,
    sent: Pick<SentAttempt, 'report' | 'at'> & { durationMs: number | null },
    claim: AttemptClaim,
    uncounted = false,
    span?: SpanHandle,
    retries: Retries = 'queued',
  ): Promise<AttemptResult> {
    const settled = settleAttempt({
      ...sent,
      uncounted,
      delivery: { ...work, maxRetries: work.subscription.maxRetries },
      retryBaseMs: this.config.webhook.retryBaseMs,
      now: new Date(),
    });
    const { attemptCount, state } = settled;
    // Delivered, or ended for good, in its order: the record claims the next one in the order with it.
    const endsTurn = work.inOrder && state.status !== 'pending';
    const recorded = await tracing.inSpan('webhook.record', {}, () => this.records.record(work, settled, sent.report, claim, endsTurn));
    if (!recorded.recorded) return { kind: 'attempted', state, recorded: false };
    if (state.status === 'pending' && retries === 'queued') {
      // The next attempt after a lost one (its worker died) is overdue: it goes ahead of the backlog.
      const ahead = claim === 'expired';
      await this.queue.enqueueDelivery(work.id, {
        attempt: attemptCount,
        delayMs: state.delayMs,
        subscriptionId: work.subscriptionId,
        ahead,
        previous: span?.traceparent ?? undefined,
      });
    }
    if (state.status === 'pending' && retries === 'caller')
      return { kind: 'attempted', state, recorded: true, previous: span?.traceparent ?? undefined };
    if (!endsTurn) return { kind: 'attempted', state, recorded: true };
    const ended = { id: work.id, accountId: work.accountId, subscriptionId: work.subscriptionId };
    return { kind: 'attempted', state, recorded: true, order: { ended, next: await this.nextInOrder(work, recorded.next) } };
  }

  /**
   * The next delivery of an order whose head just ended: the one its record claimed (null: none whose turn
   * has come), or, when the record could not look (a counted failure, recorded in a transaction of its
   * own), the subscription's ordered claim.
   */
  private async nextInOrder(ended: DeliveryRow, claimed: DeliveryRow | null | undefined): Promise<DeliveryWork | undefined> {
    if (claimed) return this.claims.claimedInOrder(claimed);
    if (claimed === null) return undefined;
    const subscription = { accountId: ended.accountId, id: ended.subscriptionId };
    const { works } = await this.claims.claimDue(subscription, ended.id, 1, true);
    return works[0];
  }
}
