import type { KeyObject } from 'node:crypto';
import { deliveryHeaders } from './webhook-envelope.rules';
import { RabbitmqOptions, routingKeyOf } from './rabbitmq-destination.rules';

/**
 * The wire format of a RabbitMQ attempt (issue 43, docs/webhooks.md "Message broker destinations"): the
 * body is the bytes an HTTP receiver gets; the headers carry the same webhook-* values an HTTP attempt
 * does, so a Standard Webhooks library verifies a message with the subscription's secret. Pure: the
 * engine publishes it, the delivery log rebuilds what an attempt published with it.
 */

export interface AmqpMessage {
  exchange: string;
  routingKey: string;
  body: string;
  properties: {
    contentType: 'application/json';
    deliveryMode: 2;
    mandatory: true;
    messageId: string;
    /** Seconds, as webhook-timestamp. */
    timestamp: number;
    type: string;
    headers: Record<string, string>;
  };
}

/** HTTP-only headers an AMQP message does not carry (content-type is a property; there is no user agent). */
const HTTP_ONLY = new Set(['content-type', 'user-agent']);

export function amqpMessage(
  work: { id: string; accountId: string; eventName: string; attemptCount: number; subscription: { maxRetries: number } },
  options: RabbitmqOptions,
  body: string,
  at: Date,
  { secrets, signingKeys }: { secrets: readonly string[]; signingKeys?: readonly KeyObject[] },
  traceparent?: string | null,
): AmqpMessage {
  const http = deliveryHeaders({
    deliveryId: work.id,
    accountId: work.accountId,
    body,
    now: at,
    secrets,
    signingKeys,
    retryCount: work.attemptCount,
    maxRetries: work.subscription.maxRetries,
    userAgent: '',
    traceparent,
  });
  const headers = Object.fromEntries(Object.entries(http).filter(([name]) => !HTTP_ONLY.has(name)));
  return {
    exchange: options.exchange,
    routingKey: routingKeyOf(options, work.eventName),
    body,
    properties: {
      contentType: 'application/json',
      deliveryMode: 2,
      mandatory: true,
      messageId: work.id,
      timestamp: Number(headers['webhook-timestamp']),
      type: work.eventName,
      headers,
    },
  };
}
