import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Coalescer } from '../../../../platform/concurrency/coalescer';
import { Metrics } from '../../../../platform/metrics/metrics';
import { QUERIES_IN_PARALLEL, QUERY_BATCH } from '../claims/webhook-claims.service';
import { DeliveryAttempt } from '../../webhook-delivery.entity';
import { DeliveryRow } from '../../webhook-delivery.row';
import { AttemptReport, attemptResult } from '../sending/webhook-delivery.rules';
import {
  AttemptClaim,
  RecordAttemptInput,
  RecordAttemptResult,
  RecordedAttempt,
  WebhookAttemptsRepository,
} from './webhook-attempts.repository';
import { NextDeliveryState, SettledAttempt } from './webhook-backoff.rules';
import { WebhookOperationalEvents } from './webhook-operational-events.service';

/** A failed record write of an attempt that was sent is tried again after these waits (while its claim is renewed). */
const RECORD_RETRY_DELAYS_MS = [200, 600];

/**
 * The record of a settled attempt (worker side): written with the subscription's failure counter in one
 * statement guarded by the attempt's claim, then observed (one log line and the metrics), and what it
 * changed about the subscription told (disabled: a warning, and webhook.disabled in the same transaction;
 * delivered again after the engine disabled it: webhook.recovered).
 */
@Injectable()
export class WebhookAttemptRecords {
  private readonly logger = new Logger(WebhookAttemptRecords.name);
  private readonly batched: Coalescer<RecordAttemptInput, RecordedAttempt>;

  constructor(
    private readonly attempts: WebhookAttemptsRepository,
    private readonly operational: WebhookOperationalEvents,
    private readonly metrics: Metrics,
  ) {
    this.batched = new Coalescer((inputs) => this.attempts.recordAttempts(inputs), QUERY_BATCH, QUERIES_IN_PARALLEL);
  }

  /**
   * Records the attempt (`claim`: the claim it settles); not recorded when another run of the same attempt
   * (or the sweep, once the claim ran out) recorded it first. `claimNext`: the attempt ends its delivery's
   * place in its order, and the record claims the next one in that order with it where it can (`next`:
   * claimed, or null, none whose turn has come; absent when this record could not look: a counted failure).
   */
  async record(
    work: DeliveryRow,
    settled: SettledAttempt,
    report: AttemptReport,
    claim: AttemptClaim,
    claimNext = false,
  ): Promise<RecordedAttempt> {
    const { attemptCount, state, counter, attempt, backpressureUntil } = settled;
    const result = await this.write(work, {
      id: work.id,
      expectedAttemptCount: work.attemptCount,
      attempt,
      status: state.status,
      nextRetryAt: state.nextRetryAt,
      counter,
      backpressureUntil,
      claim,
      claimNext,
    });
    if (!result.recorded) return { recorded: false };
    if (result.autoDisabled) {
      this.logger.warn(`subscription ${work.subscriptionId} disabled (${result.disabledReason})`);
    }
    this.observe(work, attempt, attemptCount, report, state.status, result.autoDisabled);
    // A subscription the engine had disabled delivers again: webhook.recovered (extension).
    if (state.status === 'delivered' && !work.test && work.subscription.dark) await this.operational.recovered(work);
    return { recorded: true, next: result.next };
  }

  /**
   * One record write. Increments (permanent failures, rare) go alone: the auto-disable threshold needs
   * exact counting; the rest are batched. An attempt that was sent keeps its outcome: a failed write is
   * tried again while its claim holds, and past that the sweep records it as lost.
   */
  private async write(work: DeliveryRow, input: RecordAttemptInput): Promise<RecordAttemptResult & Pick<RecordedAttempt, 'next'>> {
    for (let retry = 0; ; retry++) {
      try {
        // (With webhook.disabled in the same transaction when it disables the subscription.)
        if (input.counter === 'increment' || input.counter === 'gone') return await this.operational.recordCountedFailure(work, input);
        return { ...(await this.batched.call(input)), autoDisabled: false };
      } catch (error) {
        if (input.claim !== 'held' || retry >= RECORD_RETRY_DELAYS_MS.length) throw error;
        this.logger.warn(
          `recording attempt ${input.expectedAttemptCount} of ${input.id} failed, trying again: ${(error as Error).message}`,
        );
        await sleep(RECORD_RETRY_DELAYS_MS[retry]);
      }
    }
  }

  /** One log line and the metrics per recorded attempt (never the body, headers or signature). */
  private observe(
    work: DeliveryRow,
    attempt: DeliveryAttempt,
    attemptCount: number,
    report: AttemptReport,
    status: NextDeliveryState['status'],
    autoDisabled: boolean,
  ): void {
    const result = attemptResult(report);
    this.metrics.observeAttempt({ result, durationMs: attempt.durationMs, outcome: status, autoDisabled });
    this.logger.log(
      {
        deliveryId: work.id,
        subscriptionId: work.subscriptionId,
        attempt: attemptCount,
        outcome: status === 'pending' ? 'retrying' : status,
        result,
        responseCode: attempt.responseCode,
        durationMs: attempt.durationMs,
      },
      'webhook attempt',
    );
  }
}
