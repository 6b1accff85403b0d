import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { isIdOf } from '../../../platform/ids/ids';
import { EventsService } from '../../events/events.service';
import { eventEnvelopeSource, EnvelopeSource, testEnvelopeSource } from '../webhook-envelope.rules';
import { WebhookSubscriptionsRepository } from '../webhook-subscriptions.repository';
import { WebhookDeliveryNotFoundError, WebhookNotFoundError } from '../webhooks.errors';
import { AttemptRequest, attemptRequests } from './attempt-requests.rules';
import { toWebhookDeliveryResponse, WebhookDeliveryResponse } from './webhook-delivery.response';
import { WEBHOOK_IDS } from '../webhooks.ids';

export interface DeliveryWithRequests {
  delivery: WebhookDeliveryResponse;
  /** Per attempt (in the log's order): what it POSTed, or null when it sent nothing or its event is gone. */
  requests: Array<AttemptRequest | null>;
  /** The event's row is gone (retention), so no body can be rebuilt. */
  eventGone: boolean;
}

/**
 * A delivery with what each of its attempts sent (the console's delivery page): the requests are rebuilt
 * from the event as the log keeps it and each attempt's time, as the engine built them; nothing more is
 * stored per attempt.
 */
@Injectable()
export class WebhookDeliveryRequestsService {
  constructor(
    private readonly repository: WebhookSubscriptionsRepository,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async withRequests(accountId: string, subscriptionId: string, deliveryId: string): Promise<DeliveryWithRequests> {
    const subscription = await this.repository.find(accountId, subscriptionId);
    if (!subscription) throw new WebhookNotFoundError(subscriptionId);
    const row = isIdOf(WEBHOOK_IDS.delivery, deliveryId) ? await this.repository.findDelivery(accountId, subscriptionId, deliveryId) : null;
    if (!row) throw new WebhookDeliveryNotFoundError(deliveryId);
    let source: EnvelopeSource | null = null;
    if (row.eventId === null) source = testEnvelopeSource(row.testPayload, row);
    else {
      const [event] = await this.events.findForDelivery([{ accountId, id: row.eventId }]);
      if (event) source = eventEnvelopeSource(event);
    }
    const requests = attemptRequests({
      deliveryId: row.id,
      test: row.test,
      attempts: row.attempts,
      source,
      maxRetries: subscription.maxRetries,
      version: this.config.version,
      v1a: subscription.signingKey !== null,
      rabbitmq: subscription.rabbitmq,
      eventName: row.eventName,
    });
    return { delivery: toWebhookDeliveryResponse(row), requests, eventGone: source === null };
  }
}
