import { DeliveryStatus } from './webhook-delivery.entity';

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
  createdAt: Date;
  subscription: {
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
  };
}

/** A row of the delivery engine's load queries, as the driver returns it. */
export interface DeliveryRecord {
  id: string;
  account_id: string;
  subscription_id: string;
  event_id: string | null;
  event_name: string;
  test: boolean;
  test_payload: Record<string, unknown> | null;
  status: DeliveryStatus;
  attempt_count: number;
  retry_base: number;
  in_flight: boolean;
  created_at: Date;
  url: string;
  enabled: boolean;
  max_retries: number;
  signing_secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  signing_key: string | null;
  previous_signing_key: string | null;
  dark: boolean;
}

export function toDeliveryRow(r: DeliveryRecord): DeliveryRow {
  return {
    id: r.id,
    accountId: r.account_id,
    subscriptionId: r.subscription_id,
    eventId: r.event_id,
    eventName: r.event_name,
    test: r.test,
    testPayload: r.test_payload,
    status: r.status,
    attemptCount: r.attempt_count,
    retryBase: r.retry_base ?? 0,
    inFlight: r.in_flight,
    createdAt: r.created_at,
    subscription: {
      url: r.url,
      enabled: r.enabled,
      maxRetries: r.max_retries,
      signingSecret: r.signing_secret,
      previousSecret: r.previous_secret,
      previousSecretExpiresAt: r.previous_secret_expires_at,
      signingKey: r.signing_key ?? null,
      previousSigningKey: r.previous_signing_key ?? null,
      dark: r.dark === true,
    },
  };
}
