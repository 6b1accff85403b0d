import { amqpMessage } from './rabbitmq-message.rules';
import { amqpReport } from './engine/sending/amqp-report.rules';
import { deliveryHeaders } from './webhook-envelope.rules';

const work = { id: 'whd_1', accountId: 'acct_1', eventName: 'booking.create', attemptCount: 2, subscription: { maxRetries: 5 } };
const at = new Date('2026-12-07T04:00:00.500Z');

describe('RabbitMQ message rules', () => {
  it('carries the HTTP attempt’s body and webhook-* headers, with the properties a consumer reads', () => {
    const message = amqpMessage(work, { exchange: 'ex' }, '{"a":1}', at, { secrets: ['secret'] });
    const http = deliveryHeaders({
      deliveryId: 'whd_1',
      accountId: 'acct_1',
      body: '{"a":1}',
      now: at,
      secrets: ['secret'],
      retryCount: 2,
      maxRetries: 5,
      userAgent: 'ua',
    });
    expect(message).toEqual({
      exchange: 'ex',
      routingKey: 'booking.create',
      body: '{"a":1}',
      properties: {
        contentType: 'application/json',
        deliveryMode: 2,
        mandatory: true,
        messageId: 'whd_1',
        timestamp: Math.floor(at.getTime() / 1000),
        type: 'booking.create',
        headers: {
          'webhook-id': 'whd_1',
          'webhook-timestamp': http['webhook-timestamp'],
          'webhook-signature': http['webhook-signature'],
          'webhook-retry-count': '2',
          'webhook-max-retries': '5',
        },
      },
    });
  });

  it('marks a sandbox’s messages x-test-mode and takes a fixed routing key', () => {
    const message = amqpMessage({ ...work, accountId: 'sbx_1' }, { exchange: '', routingKey: 'q' }, '{}', at, { secrets: [] });
    expect(message.routingKey).toBe('q');
    expect(message.properties.headers['x-test-mode']).toBe('true');
    expect(message.properties.headers).not.toHaveProperty('webhook-signature');
  });

  it('reports each outcome in words with its error class', () => {
    const context = { address: '10.0.0.1', timeoutMs: 1000, totalMs: 12 };
    const to = { exchange: 'ex', routingKey: 'k' };
    expect(amqpReport({ kind: 'ok' }, to, context)).toMatchObject({
      outcome: 'ok',
      errorClass: null,
      errorMessage: null,
      resolvedIp: '10.0.0.1',
    });
    const failures = [
      [{ kind: 'unroutable' }, 'unroutable', 'no queue is bound to exchange "ex" for routing key "k"'],
      [{ kind: 'brokerRejected', message: 'the broker nacked the message' }, 'brokerRejected', 'rejected by the broker'],
      [{ kind: 'exchangeNotFound', message: '404' }, 'exchangeNotFound', 'exchange "ex" not found'],
      [{ kind: 'connectionFailed', message: 'ECONNREFUSED' }, 'connectionFailed', 'broker connection failed: ECONNREFUSED'],
      [{ kind: 'timeout', afterConnect: true }, 'timeout', "waiting for the broker's confirm"],
      [{ kind: 'timeout', afterConnect: false }, 'timeout', 'connecting to the broker'],
    ] as const;
    for (const [outcome, errorClass, words] of failures) {
      const report = amqpReport(outcome, to, context);
      expect(report).toMatchObject({ outcome: 'failed', errorClass, responseCode: null, responseSnippet: null });
      expect(report.errorMessage).toContain(words);
    }
    expect(amqpReport({ kind: 'urlRule', errorClass: 'urlRule', message: 'nope' }, to, context).outcome).toBe('fatal');
  });
});
