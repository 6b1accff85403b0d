import { columns, SelectedRow } from '../../platform/database/columns';
import { DeliveryStatus } from './webhook-delivery.entity';
import type { EnvelopeSource } from './webhook-envelope.rules';
import type { RabbitmqOptions } from './rabbitmq-destination.rules';
import type { StoredReceiverAuth } from './receiver-auth.rules';

/** A delivery with its subscription, as one attempt needs them. */
export interface DeliveryRow {
  id: string;
  accountId: string;
  subscriptionId: string;
  eventId: string | null;
  eventName: string;
  test: boolean;
  testPayload: Record<string, unknown> | null;
  status: DeliveryStatus;
  attemptCount: number;
  /** attempt_count when the current round of attempts began (0; a retry or replay opens a new round). */
  retryBase: number;
  /** An attempt of this delivery is claimed (being sent, or its worker died and the claim has not run out). */
  inFlight: boolean;
  /** In its subscription's order (issue 31): attempted only at its turn, and its end lets the next one go. */
  inOrder: boolean;
  createdAt: Date;
  subscription: DeliverySubscription;
}

/** What an attempt needs of its subscription. */
export interface DeliverySubscription {
  url: string;
  enabled: boolean;
  maxRetries: number;
  /** null on the legacy webhook: its deliveries are unsigned. */
  signingSecret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** v1a (extension): sealed ed25519 private keys; null while v1a is off. */
  signingKey: string | null;
  previousSigningKey: string | null;
  /** Disabled by the engine and not delivered to since (its next delivery publishes webhook.recovered). */
  dark: boolean;
  /** Attempts started per second at most, across workers (pacing, an extension); null (or absent): unpaced. */
  rateLimitPerSecond?: number | null;
  /** Ordered (issue 31): its new deliveries go in the feed's order, one at a time. */
  ordered?: boolean;
  /** Send the attempt's W3C traceparent to the receiver (an extension; off by default). */
  traceContext?: boolean;
  /** A RabbitMQ destination's exchange and routing key (issue 43); null (or absent) for an HTTP receiver. */
  rabbitmq?: RabbitmqOptions | null;
  /** The broker url's password, sealed for `<subscription id>:amqp`; null when none. */
  brokerPassword?: string | null;
  /** Receiver authentication (issue 42): custom headers, OAuth2; sealed parts opened by ReceiverAuth. */
  receiverAuth?: StoredReceiverAuth | null;
}

/** A claimed attempt: the delivery with its subscription, and what its envelope is built from (loaded with the claim). */
export interface DeliveryWork extends DeliveryRow {
  envelopeSource: EnvelopeSource;
}

type DeliveryFields = Omit<DeliveryRow, 'subscription'>;

/**
 * The engine's load and claim queries select these, the delivery's under the alias `d` and its
 * subscription's under `s` (columns.ts: one map per table, checked against the types at compile time).
 * Two fields are expressions over a column rather than the column itself.
 */
export const DELIVERY_ROW_COLUMNS = columns<DeliveryFields>({
  id: 'id',
  accountId: 'account_id',
  subscriptionId: 'subscription_id',
  eventId: 'event_id',
  eventName: 'event_name',
  test: 'test',
  testPayload: 'test_payload',
  status: 'status',
  attemptCount: 'attempt_count',
  retryBase: { column: 'retry_base', decode: (value) => (value as number | null) ?? 0 },
  inFlight: 'in_flight_until IS NOT NULL',
  inOrder: 'order_tx IS NOT NULL',
  createdAt: 'created_at',
});

export const DELIVERY_SUBSCRIPTION_COLUMNS = columns<DeliverySubscription>({
  url: 'url',
  enabled: 'enabled',
  maxRetries: 'max_retries',
  signingSecret: 'signing_secret',
  previousSecret: 'previous_secret',
  previousSecretExpiresAt: 'previous_secret_expires_at',
  signingKey: 'signing_key',
  previousSigningKey: 'previous_signing_key',
  dark: { column: 'dark_since IS NOT NULL', decode: (value) => value === true },
  rateLimitPerSecond: 'rate_limit_per_second',
  ordered: 'ordered',
  traceContext: 'trace_context',
  rabbitmq: 'rabbitmq',
  brokerPassword: 'broker_password',
  receiverAuth: 'receiver_auth',
});

/** `d.… AS "…", s.… AS "…"`: the select list of a delivery joined (as `d`) with its subscription (as `s`). */
export function deliveryRowSelectList(delivery = 'd', subscription = 's'): string {
  return `${DELIVERY_ROW_COLUMNS.selectList(delivery)}, ${DELIVERY_SUBSCRIPTION_COLUMNS.selectList(subscription)}`;
}

/** The delivery's own columns a claim returns (the raw names, for RETURNING lists). */
export function deliveryReturningList(alias: string): string {
  const raw = ['id', 'account_id', 'subscription_id', 'event_id', 'event_name', 'test', 'test_payload', 'status'];
  return [...raw, 'attempt_count', 'retry_base', 'in_flight_until', 'order_tx', 'created_at']
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/** A row read with deliveryRowSelectList. */
export function toDeliveryRow(row: SelectedRow): DeliveryRow {
  return { ...DELIVERY_ROW_COLUMNS.toEntity(row), subscription: DELIVERY_SUBSCRIPTION_COLUMNS.toEntity(row) };
}
