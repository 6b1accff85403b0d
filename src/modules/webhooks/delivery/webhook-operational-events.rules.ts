import { arrayOf, dateTime, enumOf, id, int, orNull, shapeOf, str, uri } from '../../../platform/openapi/json-schema';
import { readShape } from '../../../platform/openapi/read-shape';
import { DeliveryAttempt } from '../webhook-delivery.entity';
import { AUTO_DISABLED_REASON, GONE_DISABLED_REASON } from '../subscriptions/webhook-subscription.rules';
import { WEBHOOK_IDS } from '../webhooks.ids';

/** How many of the last permanently failed deliveries a webhook.disabled event shows. */
export const LAST_FAILURES_SHOWN = 5;

export interface WebhookDisabledResult {
  subscriptionId: string;
  url: string;
  /** The subscription's disabledReason: auto_disabled_after_repeated_delivery_failures or gone. */
  reason: string;
  disabledAt: string;
  /** Newest first: each failed delivery with its last attempt. */
  lastFailures: Array<{
    deliveryId: string;
    eventId: string | null;
    eventName: string;
    at: string | null;
    responseCode: number | null;
    errorClass: string | null;
    errorMessage: string | null;
  }>;
}

export interface WebhookRecoveredResult {
  subscriptionId: string;
  url: string;
  /** When the engine disabled it. */
  darkSince: string;
  recoveredAt: string;
  /** The delivery that got through. */
  deliveryId: string;
}

/** The `results[0]` of a webhook.disabled event. */
export function disabledEventResult(input: {
  subscriptionId: string;
  url: string;
  reason: string;
  disabledAt: Date;
  failures: Array<{ id: string; eventId: string | null; eventName: string; attempt: DeliveryAttempt | null }>;
}): WebhookDisabledResult {
  return {
    subscriptionId: input.subscriptionId,
    url: input.url,
    reason: input.reason,
    disabledAt: input.disabledAt.toISOString(),
    lastFailures: input.failures.map((failure) => ({
      deliveryId: failure.id,
      eventId: failure.eventId,
      eventName: failure.eventName,
      at: failure.attempt?.at ?? null,
      responseCode: failure.attempt?.responseCode ?? null,
      errorClass: failure.attempt?.errorClass ?? null,
      errorMessage: failure.attempt?.errorMessage ?? null,
    })),
  };
}

/** The `results[0]` of a webhook.recovered event. */
export function recoveredEventResult(input: {
  subscriptionId: string;
  url: string;
  darkSince: Date;
  deliveryId: string;
  recoveredAt?: Date;
}): WebhookRecoveredResult {
  return {
    subscriptionId: input.subscriptionId,
    url: input.url,
    darkSince: input.darkSince.toISOString(),
    recoveredAt: (input.recoveredAt ?? new Date()).toISOString(),
    deliveryId: input.deliveryId,
  };
}

export const WEBHOOK_DISABLED_SHAPE = readShape<WebhookDisabledResult>(
  'WebhookDisabled',
  'Extension: the delivery engine disabled a subscription (clientRequestId is its id).',
  {
    subscriptionId: id(WEBHOOK_IDS.subscription),
    url: uri,
    reason: enumOf([AUTO_DISABLED_REASON, GONE_DISABLED_REASON]),
    disabledAt: dateTime,
    lastFailures: arrayOf(
      shapeOf<WebhookDisabledResult['lastFailures'][number]>(
        'A permanently failed delivery and its last attempt, newest first (up to 5).',
        {
          deliveryId: id(WEBHOOK_IDS.delivery),
          eventId: orNull(str),
          eventName: str,
          at: orNull(dateTime),
          responseCode: orNull(int),
          errorClass: orNull(str),
          errorMessage: orNull(str),
        },
      ),
    ),
  },
);

export const WEBHOOK_RECOVERED_SHAPE = readShape<WebhookRecoveredResult>(
  'WebhookRecovered',
  'Extension: a subscription the engine had disabled delivered again (clientRequestId is its id).',
  {
    subscriptionId: id(WEBHOOK_IDS.subscription),
    url: uri,
    darkSince: dateTime,
    recoveredAt: dateTime,
    deliveryId: id(WEBHOOK_IDS.delivery),
  },
);

/** The `results[0]` of a webhook.clientCertificateExpired event (issue 42). */
export interface WebhookClientCertificateExpiredResult {
  subscriptionId: string;
  url: string;
  certificateSubject: string;
  certificateExpiresAt: string;
  /** The first delivery that could not go for it. */
  deliveryId: string;
}

export const WEBHOOK_CLIENT_CERTIFICATE_EXPIRED_SHAPE = readShape<WebhookClientCertificateExpiredResult>(
  'WebhookClientCertificateExpired',
  "Extension (issue 42): a subscription's mTLS client certificate has expired; its attempts fail without a retry until a new one is set (clientRequestId is its id).",
  {
    subscriptionId: id(WEBHOOK_IDS.subscription),
    url: uri,
    certificateSubject: str,
    certificateExpiresAt: dateTime,
    deliveryId: id(WEBHOOK_IDS.delivery),
  },
);
