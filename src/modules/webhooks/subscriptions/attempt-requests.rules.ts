import { deliveryHeaders, EnvelopeSource, envelopeBody, webhookUserAgent } from '../webhook-envelope.rules';
import { SUBSCRIPTION_DISABLED_MESSAGE } from './webhook-subscription.rules';
import type { DeliveryAttempt } from '../webhook-delivery.entity';
import { amqpMessage } from '../rabbitmq-message.rules';
import type { RabbitmqOptions } from '../rabbitmq-destination.rules';

/** What one attempt POSTed (or published): its headers, in the order sent, and its body byte for byte. */
export interface AttemptRequest {
  headers: Array<[name: string, value: string]>;
  body: string;
  /** A RabbitMQ destination's attempt (issue 43): where it was published and the message's properties (its headers are `headers`). */
  published?: { exchange: string; routingKey: string; properties: Array<[name: string, value: string]> };
}

/**
 * What the signature header shows: signatures are not kept (each attempt signed its own bytes with the
 * secrets of the moment), so only their schemes are shown.
 */
export const SIGNATURE_NOT_KEPT = 'not kept';

/** Attempts that stopped before anything was sent: the URL check refused it, its name did not resolve, or the subscription was disabled. */
export function attemptWasSent(attempt: Pick<DeliveryAttempt, 'errorClass' | 'errorMessage'>): boolean {
  return attempt.errorClass !== 'urlRule' && attempt.errorClass !== 'dns' && attempt.errorMessage !== SUBSCRIPTION_DISABLED_MESSAGE;
}

export interface AttemptRequestsInput {
  deliveryId: string;
  test: boolean;
  attempts: ReadonlyArray<Pick<DeliveryAttempt, 'at' | 'errorClass' | 'errorMessage'>>;
  /** What the envelopes were built from; null once the event is gone (retention): no body can be shown then. */
  source: EnvelopeSource | null;
  maxRetries: number;
  version: string;
  /** Whether the subscription signs with v1a now (the signature header names the schemes). */
  v1a: boolean;
  /** A RabbitMQ destination's options (issue 43): its attempts were published, not POSTed; null or absent for an HTTP receiver. */
  rabbitmq?: RabbitmqOptions | null;
  /** The delivery's event name (a broker message's type and default routing key). */
  eventName?: string;
}

/**
 * Each attempt's request as the engine built it (webhook-delivery.rules: the same envelope, notifiedAt and
 * webhook-timestamp from the attempt's time, webhook-retry-count its place in the log), or null for an
 * attempt that sent nothing or whose event is gone. The signature values are the one part not rebuilt.
 */
export function attemptRequests(input: AttemptRequestsInput): Array<AttemptRequest | null> {
  return input.attempts.map((attempt, retryCount) => {
    if (!input.source || !attemptWasSent(attempt)) return null;
    const at = new Date(attempt.at);
    const body = envelopeBody(input.source, at, { test: input.test });
    const headers = deliveryHeaders({
      deliveryId: input.deliveryId,
      accountId: input.source.targetAccountId,
      body,
      now: at,
      secrets: [],
      retryCount,
      maxRetries: input.maxRetries,
      userAgent: webhookUserAgent(input.version),
    });
    const signature = `v1,${SIGNATURE_NOT_KEPT}${input.v1a ? ` v1a,${SIGNATURE_NOT_KEPT}` : ''}`;
    if (input.rabbitmq) return publishedRequest(input, input.rabbitmq, retryCount, at, body, signature);
    const entries = Object.entries(headers);
    const afterTimestamp = entries.findIndex(([name]) => name === 'webhook-timestamp') + 1;
    return { headers: [...entries.slice(0, afterTimestamp), ['webhook-signature', signature], ...entries.slice(afterTimestamp)], body };
  });
}

/** A broker attempt as published (rabbitmq-message.rules: the same message the engine built), signature values not kept. */
function publishedRequest(
  input: AttemptRequestsInput,
  rabbitmq: RabbitmqOptions,
  retryCount: number,
  at: Date,
  body: string,
  signature: string,
): AttemptRequest {
  const work = {
    id: input.deliveryId,
    accountId: input.source!.targetAccountId,
    eventName: input.eventName ?? input.source!.eventName,
    attemptCount: retryCount,
    subscription: { maxRetries: input.maxRetries },
  };
  const message = amqpMessage(work, rabbitmq, body, at, { secrets: [] });
  const entries = Object.entries(message.properties.headers);
  const afterTimestamp = entries.findIndex(([name]) => name === 'webhook-timestamp') + 1;
  const { headers: _headers, ...properties } = message.properties;
  return {
    headers: [...entries.slice(0, afterTimestamp), ['webhook-signature', signature], ...entries.slice(afterTimestamp)],
    body,
    published: {
      exchange: message.exchange,
      routingKey: message.routingKey,
      properties: Object.entries(properties).map(([name, value]) => [name, String(value)]),
    },
  };
}
