import { Injectable } from '@nestjs/common';
import { DeliveryWork } from '../../webhook-delivery.row';
import { isBrokerUrl } from '../../rabbitmq-destination.rules';
import { AmqpPublisher } from './amqp-publisher';
import { DeliverySigning } from './delivery-signing-secrets';
import { SentAttempt, WebhookPoster } from './webhook-poster';

/**
 * Where the send step delivers an attempt (a destination is an option of the send step, not a second
 * engine): it sends the signed envelope and reports how that went. Everything around it (claim, admit,
 * settle, record, schedule) is the same for every destination.
 */
export interface WebhookDestination {
  send(work: DeliveryWork, signing: DeliverySigning, traceparent?: string | null): Promise<SentAttempt>;
}

/** The destination of an attempt, chosen by its subscription's url scheme: amqp(s) → RabbitMQ, else the HTTP POST. */
@Injectable()
export class WebhookDestinations {
  constructor(
    private readonly poster: WebhookPoster,
    private readonly amqp: AmqpPublisher,
  ) {}

  for(work: DeliveryWork): WebhookDestination {
    return isBrokerUrl(work.subscription.url) ? this.amqp : this.poster;
  }
}
