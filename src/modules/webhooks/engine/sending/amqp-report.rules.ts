import type { AttemptErrorClass } from '../../webhook-delivery.entity';
import type { AmqpMessage } from '../../rabbitmq-message.rules';
import type { AttemptReport } from './webhook-delivery.rules';

/** The delivery log's report of a RabbitMQ attempt (issue 43): how the publish ended, in words and as an error class. Pure. */

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
