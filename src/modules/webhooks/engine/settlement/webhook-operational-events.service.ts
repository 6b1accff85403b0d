import { Injectable, Logger } from '@nestjs/common';
import { UnitOfWork } from '../../../../platform/database/unit-of-work';
import { EventsService } from '../../../events/events.service';
import { RecordAttemptInput, RecordAttemptResult, WebhookAttemptsRepository } from './webhook-attempts.repository';
import { DeliveryRow } from '../../webhook-delivery.row';
import { WebhookSubscriptionsRepository } from '../../webhook-subscriptions.repository';
import { disabledEventResult, LAST_FAILURES_SHOWN, recoveredEventResult } from '../../delivery/webhook-operational-events.rules';

/**
 * Operational events (an extension of the spec, docs/webhooks.md): `webhook.disabled` when the engine
 * disables a subscription (auto-disable, 410 Gone), published in the transaction that records the
 * disabling attempt, and `webhook.recovered` on its first delivered delivery after that, published in
 * the transaction that clears the mark. They go to the account's feed and its other subscriptions:
 * dispatch leaves them out of the subscription they are about (its id is their clientRequestId).
 */
@Injectable()
export class WebhookOperationalEvents {
  private readonly logger = new Logger(WebhookOperationalEvents.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly attempts: WebhookAttemptsRepository,
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly events: EventsService,
  ) {}

  /**
   * Records a counted permanent failure (see WebhookAttemptsRepository.recordCountedFailure) and,
   * when it disabled the subscription, publishes webhook.disabled with the reason and the last failures,
   * all in one transaction.
   */
  recordCountedFailure(work: DeliveryRow, input: RecordAttemptInput): Promise<RecordAttemptResult> {
    return this.uow.run(context(work, `${input.id}.${input.expectedAttemptCount}`), async (tx) => {
      const result = await this.attempts.recordCountedFailure(input, tx.manager);
      // (Not for the legacy webhook, which has no secret: the legacy contract has no such events.)
      if (result.autoDisabled && work.subscription.signingSecret !== null) {
        const failures = await this.subscriptions.lastFailures(tx.manager, work.accountId, work.subscriptionId, LAST_FAILURES_SHOWN);
        await this.events.publish(tx, 'webhook.disabled', [
          disabledEventResult({
            subscriptionId: work.subscriptionId,
            url: work.subscription.url,
            reason: result.disabledReason ?? 'unknown',
            disabledAt: new Date(),
            failures,
          }),
        ]);
      }
      return result;
    });
  }

  /**
   * An attempt found the subscription's client certificate expired (issue 42): publishes
   * webhook.clientCertificateExpired in a transaction of its own (the caller makes it once per certificate).
   * A failure is logged and reported false, so the next attempt tries again.
   */
  async clientCertificateExpired(
    work: Pick<DeliveryRow, 'id' | 'accountId' | 'subscriptionId'> & { subscription: Pick<DeliveryRow['subscription'], 'url'> },
    certificate: { certificateSubject: string; certificateExpiresAt: string },
  ): Promise<boolean> {
    try {
      await this.uow.run(context(work, work.id), (tx) =>
        this.events.publish(tx, 'webhook.clientCertificateExpired', [
          {
            subscriptionId: work.subscriptionId,
            url: work.subscription.url,
            certificateSubject: certificate.certificateSubject,
            certificateExpiresAt: certificate.certificateExpiresAt,
            deliveryId: work.id,
          },
        ]),
      );
      return true;
    } catch (error) {
      this.logger.warn(`publishing webhook.clientCertificateExpired of ${work.subscriptionId} failed: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * A delivery of a subscription the engine had disabled was delivered: publishes webhook.recovered once
   * (the first caller clears the mark). A failure is logged: the next delivered delivery tries again.
   */
  async recovered(work: DeliveryRow): Promise<void> {
    if (work.subscription.signingSecret === null) return; // the legacy webhook (see recordCountedFailure)
    try {
      await this.uow.run(context(work, work.id), async (tx) => {
        const was = await this.subscriptions.clearDark(tx.manager, work.accountId, work.subscriptionId);
        if (!was) return;
        await this.events.publish(tx, 'webhook.recovered', [
          recoveredEventResult({ subscriptionId: work.subscriptionId, url: was.url, darkSince: was.darkSince, deliveryId: work.id }),
        ]);
      });
    } catch (error) {
      this.logger.warn(`publishing webhook.recovered of ${work.subscriptionId} failed: ${(error as Error).message}`);
    }
  }
}

/** The envelope of an operational event: clientRequestId is the subscription it is about, apiRequestId the attempt or delivery. */
function context(work: Pick<DeliveryRow, 'accountId' | 'subscriptionId'>, requestId: string) {
  return { accountId: work.accountId, clientRequestId: work.subscriptionId, requestId };
}
