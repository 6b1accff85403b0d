import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { AppConfig } from '../../../../config/config';
import { APP_CONFIG } from '../../../../config/config.module';
import { policyViolationOf } from '../../../../platform/net/outbound-url-policy';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { DeliveryWork } from '../../webhook-delivery.row';
import { envelopeBody } from '../../webhook-envelope.rules';
import { brokerPasswordContext, parseBrokerUrl, RabbitmqOptions } from '../../rabbitmq-destination.rules';
import { AmqpConnections, ExchangeChannel } from './amqp-connections';
import { AmqpOutcome, amqpReport } from './amqp-report.rules';
import { AmqpMessage, amqpMessage } from '../../rabbitmq-message.rules';
import { DeliverySigning } from './delivery-signing-secrets';
import type { SentAttempt } from './webhook-poster';
import { urlRuleErrorClass } from './webhook-delivery.rules';

/**
 * The RabbitMQ side of an attempt (issue 43, worker only): the envelope an HTTP receiver would get,
 * published with `mandatory` on the exchange's confirm channel of the broker's one connection
 * (AmqpConnections). Delivered means confirmed: the attempt succeeds only on the broker's ack of a
 * message it did not return; a return (no queue bound), a nack, a missing exchange, a lost connection or
 * no confirm within WEBHOOK_TIMEOUT_MS is a failed attempt, retried on the usual schedule.
 */
@Injectable()
export class AmqpPublisher {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: AmqpConnections,
    private readonly secrets: SecretBox,
  ) {}

  async send(work: DeliveryWork, signing: DeliverySigning, traceparent?: string | null): Promise<SentAttempt> {
    const at = new Date();
    const started = performance.now();
    const { timeoutMs } = this.config.webhook;
    const options = work.subscription.rabbitmq as RabbitmqOptions;
    const body = envelopeBody(work.envelopeSource, at, { test: work.test });
    const message = amqpMessage(work, options, body, at, signing, traceparent);
    let address: string | null = null;
    let outcome: AmqpOutcome;
    const deadline = new Deadline(timeoutMs);
    try {
      const broker = parseBrokerUrl(work.subscription.url);
      const sealed = work.subscription.brokerPassword;
      const password = sealed ? this.secrets.open(sealed, brokerPasswordContext(work.subscriptionId)) : null;
      const opened = await deadline.race(this.connections.channel(broker, password, message.exchange, timeoutMs));
      address = opened.address;
      outcome = await deadline.race(publish(opened.channel, message));
    } catch (error) {
      const refused = policyViolationOf(error);
      if (refused) outcome = { kind: 'urlRule', errorClass: urlRuleErrorClass(refused.violation), message: refused.message };
      else if (error instanceof DeadlinePassed) outcome = { kind: 'timeout', afterConnect: address !== null };
      else outcome = { kind: 'connectionFailed', message: (error as Error)?.message ?? String(error) };
    } finally {
      deadline.clear();
    }
    const durationMs = Math.round(performance.now() - started);
    return { report: amqpReport(outcome, message, { address, timeoutMs, totalMs: durationMs }), at, durationMs };
  }
}

/** One publish and its confirm; resolves with how it ended (never rejects). */
function publish(state: ExchangeChannel, message: AmqpMessage): Promise<AmqpOutcome> {
  const id = message.properties.messageId;
  return new Promise((resolve) => {
    const ended = (error: Error | null | undefined) => {
      const returned = state.returned.delete(id);
      if (!error) return resolve(returned ? { kind: 'unroutable' } : { kind: 'ok' });
      if (state.closedBy?.code === 404) return resolve({ kind: 'exchangeNotFound', message: state.closedBy.message });
      if (state.closedBy) return resolve({ kind: 'brokerRejected', message: state.closedBy.message });
      if (error.message === 'message nacked') return resolve({ kind: 'brokerRejected', message: 'the broker nacked the message' });
      return resolve({ kind: 'connectionFailed', message: error.message });
    };
    state.returned.delete(id);
    try {
      state.channel.publish(message.exchange, message.routingKey, Buffer.from(message.body), message.properties, (error) => ended(error));
    } catch (error) {
      // The channel closed between its lookup and this publish.
      ended(error as Error);
    }
  });
}

class DeadlinePassed extends Error {}

/** One deadline for connecting, publishing and the confirm. */
class Deadline {
  private timer: NodeJS.Timeout | undefined;
  private readonly passed: Promise<never>;

  constructor(ms: number) {
    this.passed = new Promise<never>((_resolve, reject) => {
      this.timer = setTimeout(() => reject(new DeadlinePassed()), ms);
    });
    this.passed.catch(() => undefined);
  }

  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    return Promise.race([work, this.passed]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
