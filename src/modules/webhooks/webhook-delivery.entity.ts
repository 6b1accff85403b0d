import { Column, Entity, PrimaryColumn, VirtualColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed_permanent';

/**
 * Why an attempt got no (usable) answer: the delivery log's error class (an extension of the spec, docs/webhooks.md).
 * A RabbitMQ destination's (issue 43): no queue bound, nacked, no such exchange, no connection. Receiver
 * authentication's (issue 42): `tokenRequestFailed`, the receiver's OAuth2 token endpoint failed;
 * `clientCertificateExpired`, the subscription's mTLS certificate has expired (never retried). Nothing was sent in either.
 */
export type AttemptErrorClass =
  | 'dns'
  | 'refused'
  | 'tls'
  | 'timeout'
  | 'urlRule'
  | 'tooLarge'
  | 'network'
  | 'unroutable'
  | 'brokerRejected'
  | 'exchangeNotFound'
  | 'connectionFailed'
  | 'tokenRequestFailed'
  | 'clientCertificateExpired';

/** Milliseconds of each phase of an attempt; null for a phase it did not go through (a kept-alive connection has no connect). */
export interface AttemptTimings {
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  firstByteMs: number | null;
  totalMs: number;
}

export interface DeliveryAttempt {
  at: string;
  responseCode: number | null;
  /** The first 1 KB of the response body; set to null once the attempt is 7 days old (retention). */
  responseSnippet: string | null;
  errorMessage: string | null;
  /** null when the outcome is unknown (the worker stopped before recording the attempt). */
  durationMs: number | null;
  // Extensions of the spec's attempt (absent on attempts recorded before them; the API shows null).
  errorClass?: AttemptErrorClass | null;
  /** The address the attempt connected to (or was connecting to when it failed). */
  resolvedIp?: string | null;
  timings?: AttemptTimings | null;
  /** The delay a Retry-After answer set for the next attempt, as clamped. */
  retryAfterMs?: number | null;
}

@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ name: 'account_id', type: 'text' }) accountId: string;
  @Column({ name: 'subscription_id', type: 'text' }) subscriptionId: string;
  @Column({ name: 'event_id', type: 'text', nullable: true }) eventId: string | null;
  @Column({ name: 'event_name', type: 'text' }) eventName: string;
  @Column({ type: 'boolean' }) test: boolean;
  @Column({ name: 'test_payload', type: 'jsonb', nullable: true }) testPayload: Record<string, unknown> | null;
  @Column({ type: 'text' }) status: DeliveryStatus;
  @Column({ name: 'attempt_count', type: 'integer' }) attemptCount: number;
  @Column({ type: 'jsonb' }) attempts: DeliveryAttempt[];
  @Column({ name: 'first_attempt_at', type: 'timestamptz', nullable: true }) firstAttemptAt: Date | null;
  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true }) lastAttemptAt: Date | null;
  @Column({ name: 'next_retry_at', type: 'timestamptz', nullable: true }) nextRetryAt: Date | null;
  /** While an attempt is being sent: when it was claimed, and until when the claim holds. */
  @Column({ name: 'in_flight_since', type: 'timestamptz', nullable: true }) inFlightSince: Date | null;
  @Column({ name: 'in_flight_until', type: 'timestamptz', nullable: true }) inFlightUntil: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  /** attempt_count when the current round of attempts began: a retry or replay opens a new one (same webhook-id). */
  @Column({ name: 'retry_base', type: 'integer', default: 0 }) retryBase: number;
  /** The replay that opened the current round, if one did. */
  @Column({ name: 'replay_id', type: 'text', nullable: true }) replayId: string | null;
  /** When the oldest response snippet still kept turns 7 days old (retention drops it then); null when none is kept. */
  @Column({ name: 'snippets_expire_at', type: 'timestamptz', nullable: true }) snippetsExpireAt: Date | null;
  /**
   * Read only: the head of its subscription's order (the lowest pending delivery in order) while this one
   * is pending in that order; itself when it is the head, null when outside any order (issue 31).
   */
  @VirtualColumn({
    type: 'text',
    query: (alias) =>
      `SELECT h.id FROM webhook_deliveries h
        WHERE ${alias}.order_tx IS NOT NULL AND ${alias}.status = 'pending'
          AND h.subscription_id = ${alias}.subscription_id AND h.order_tx IS NOT NULL AND h.status = 'pending'
        ORDER BY h.order_tx, h.event_id LIMIT 1`,
  })
  orderHead: string | null;
}
