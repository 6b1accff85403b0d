import type { AttemptErrorClass } from '../../webhook-delivery.entity';
import { DeliveryRow } from '../../webhook-delivery.row';
import { deliveryHeaders } from '../../webhook-envelope.rules';
import { RabbitmqOptions, routingKeyOf } from '../../subscriptions/rabbitmq-destination.rules';
import type { DeliverySigning } from './delivery-signing-secrets';
import type { AttemptReport } from './webhook-delivery.rules';

/**
 * The wire format of a RabbitMQ attempt (issue 43, docs/webhooks.md "Message broker destinations"): the
 * body is the bytes an HTTP receiver gets; the headers carry the same webhook-* values an HTTP attempt
 * does, so a Standard Webhooks library verifies a message with the subscription's secret. Pure.
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
  work: Pick<DeliveryRow, 'id' | 'accountId' | 'eventName' | 'attemptCount'> & { subscription: { maxRetries: number } },
  options: RabbitmqOptions,
  body: string,
  at: Date,
  { secrets, signingKeys }: Pick<DeliverySigning, 'secrets' | 'signingKeys'>,
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

/** How a publish ended. */
export type AmqpOutcome =
  | { kind: 'ok' }
  | { kind: 'unroutable' }
  | { kind: 'brokerRejected'; message: string }
  | { kind: 'exchangeNotFound'; message: string }
  | { kind: 'connectionFailed'; message: string }
  | { kind: 'timeout'; afterConnect: boolean }
  | { kind: 'urlRule'; errorClass: AttemptErrorClass; message: string };

/** The delivery log's report of a publish: its outcome in words and its error class. */
export function amqpReport(
  outcome: AmqpOutcome,
  message: Pick<AmqpMessage, 'exchange' | 'routingKey'>,
  context: { address: string | null; timeoutMs: number; totalMs: number },
): AttemptReport {
  const exchange = message.exchange === '' ? 'the default exchange' : `exchange "${message.exchange}"`;
  const base = {
    responseCode: null,
    responseSnippet: null,
    resolvedIp: context.address,
    timings: { dnsMs: null, connectMs: null, tlsMs: null, firstByteMs: null, totalMs: context.totalMs },
  };
  const failed = (errorClass: AttemptErrorClass, text: string): AttemptReport => ({
    ...base,
    outcome: 'failed',
    errorClass,
    errorMessage: text.slice(0, 500),
  });
  switch (outcome.kind) {
    case 'ok':
      return { ...base, outcome: 'ok', errorMessage: null, errorClass: null };
    case 'unroutable':
      return failed(
        'unroutable',
        `unroutable: no queue is bound to ${exchange} for routing key "${message.routingKey}" (returned by the broker)`,
      );
    case 'brokerRejected':
      return failed('brokerRejected', `rejected by the broker: ${outcome.message}`);
    case 'exchangeNotFound':
      return failed('exchangeNotFound', `${exchange} not found on the broker: ${outcome.message}`);
    case 'connectionFailed':
      return failed('connectionFailed', `broker connection failed: ${outcome.message}`);
    case 'timeout':
      return failed(
        'timeout',
        outcome.afterConnect
          ? `timed out after ${context.timeoutMs} ms waiting for the broker's confirm`
          : `timed out after ${context.timeoutMs} ms connecting to the broker`,
      );
    case 'urlRule':
      return { ...base, outcome: 'fatal', errorClass: outcome.errorClass, errorMessage: `URL rule violation: ${outcome.message}` };
  }
}
