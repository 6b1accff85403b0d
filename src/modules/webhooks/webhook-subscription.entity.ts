import { Column, Entity, PrimaryColumn, VirtualColumn } from 'typeorm';
import type { RabbitmqOptions } from './rabbitmq-destination.rules';
import type { StoredReceiverAuth } from './receiver-auth.rules';

/** `platform`: a /v1/webhooks subscription; `legacy`: an account's legacy webhook (PUT /legacy/webhook), unsigned and subscribed to everything. */
export type SubscriptionKind = 'platform' | 'legacy';

@Entity('webhook_subscriptions')
export class WebhookSubscriptionEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ type: 'text' }) kind: SubscriptionKind;
  @Column({ type: 'text' }) url: string;
  @Column({ name: 'event_filters', type: 'text', array: true }) eventFilters: string[];
  @Column({ type: 'boolean' }) enabled: boolean;
  @Column({ name: 'max_retries', type: 'integer' }) maxRetries: number;
  /** Sealed; null on the legacy webhook, whose deliveries are unsigned (spec 9.2). */
  @Column({ name: 'signing_secret', type: 'text', nullable: true }) signingSecret: string | null;
  /** Kept for 24 hours after a rotation so deliveries carry both signatures. */
  @Column({ name: 'previous_secret', type: 'text', nullable: true }) previousSecret: string | null;
  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true }) previousSecretExpiresAt: Date | null;
  /** v1a (extension): the sealed ed25519 private key; null while v1a is off (the subscription signs with v1 only). */
  @Column({ name: 'signing_key', type: 'text', nullable: true }) signingKey: string | null;
  /** The key a rotation replaced, signing beside the new one until previousSecretExpiresAt. */
  @Column({ name: 'previous_signing_key', type: 'text', nullable: true }) previousSigningKey: string | null;
  /** `whpk_` + base64 of the raw public key of signingKey; null while v1a is off. */
  @Column({ name: 'public_key', type: 'text', nullable: true }) publicKey: string | null;
  @Column({ name: 'disabled_reason', type: 'text', nullable: true }) disabledReason: string | null;
  /** Consecutive permanently failed non-test deliveries; 10 disables the subscription. */
  @Column({ name: 'consecutive_failures', type: 'integer' }) consecutiveFailures: number;
  /** End of the back-pressure window a Retry-After answer opened (failures so answered count once per window). */
  @Column({ name: 'backpressure_until', type: 'timestamptz', nullable: true }) backpressureUntil: Date | null;
  /** The attempt (`<delivery id>.<attempt>`) that disabled the subscription, if the engine did. */
  @Column({ name: 'disabled_by', type: 'text', nullable: true }) disabledBy: string | null;
  /** Since the engine disabled it (auto-disable, 410 Gone), until a delivery succeeds again: webhook.recovered. */
  @Column({ name: 'dark_since', type: 'timestamptz', nullable: true }) darkSince: Date | null;
  /** Attempts started per second at most, across workers (pacing, an extension); null: unpaced. */
  @Column({ name: 'rate_limit_per_second', type: 'integer', nullable: true }) rateLimitPerSecond: number | null;
  /** Ordered (issue 31, an extension): its deliveries go one at a time in the events feed's order. */
  @Column({ type: 'boolean', default: false }) ordered: boolean;
  /**
   * Read only: how many of its deliveries wait behind the head of its order (0 when unordered: nothing
   * waits there). Counted from the partial index webhook_deliveries_order_idx; never written.
   */
  @VirtualColumn({
    type: 'int',
    query: (alias) =>
      `SELECT greatest(count(*) - 1, 0)::int FROM webhook_deliveries w
        WHERE ${alias}.ordered AND w.subscription_id = ${alias}.id AND w.order_tx IS NOT NULL AND w.status = 'pending'`,
  })
  waitingDeliveries: number;
  /** Send each attempt's W3C traceparent to the receiver (an extension, docs/webhooks.md); off by default. */
  @Column({ name: 'trace_context', type: 'boolean', default: false }) traceContext: boolean;
  /** RabbitMQ destination (issue 43): the exchange and routing key of an amqp(s) url; null for an HTTP receiver. */
  @Column({ type: 'jsonb', nullable: true }) rabbitmq: RabbitmqOptions | null;
  /** The broker url's password, sealed (the url is stored and shown without it); null when none. */
  @Column({ name: 'broker_password', type: 'text', nullable: true }) brokerPassword: string | null;
  /** Receiver authentication (issue 42, an extension): custom headers, OAuth2; secrets sealed. Null: none. */
  @Column({ name: 'receiver_auth', type: 'jsonb', nullable: true }) receiverAuth: StoredReceiverAuth | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
