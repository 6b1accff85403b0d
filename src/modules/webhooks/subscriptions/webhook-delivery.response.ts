import {
  arrayOf,
  bool,
  dateTime,
  described,
  enumOf,
  everyMember,
  id,
  int,
  num,
  optional,
  orNull,
  shapeOf,
  str,
} from '../../../platform/openapi/json-schema';
import { readShape } from '../../../platform/openapi/read-shape';
import { AttemptErrorClass, AttemptTimings, DeliveryAttempt, DeliveryStatus, WebhookDeliveryEntity } from '../webhook-delivery.entity';
import { WEBHOOK_IDS } from '../webhooks.ids';

/** A delivery log row (spec 2.8), plus its eventName. Test payloads are not shown. */
export interface WebhookDeliveryResponse {
  id: string;
  eventId: string | null;
  eventName: string;
  status: DeliveryStatus;
  test: boolean;
  attemptCount: number;
  firstAttemptAt: string | null;
  lastAttemptAt: string | null;
  nextRetryAt: string | null;
  createdAt: string;
  attempts: Array<Required<DeliveryAttempt>>;
  /** Extension (ordered endpoints): while this pending delivery waits its turn, the delivery at the head of its order. */
  waitingFor?: string;
}

/** POST /v1/webhooks/{webhookId}/test: the test delivery queued; follow it in the delivery log. */
export interface TestDeliveryResponse {
  deliveryId: string;
  status: 'pending';
}

/** POST …/deliveries/{deliveryId}/retry: the attempt queued (its webhook-retry-count). */
export interface RetriedDeliveryResponse {
  deliveryId: string;
  status: 'pending';
  attempt: number;
}

export function toWebhookDeliveryResponse(row: WebhookDeliveryEntity): WebhookDeliveryResponse {
  return {
    id: row.id,
    eventId: row.eventId,
    eventName: row.eventName,
    status: row.status,
    test: row.test,
    attemptCount: row.attemptCount,
    firstAttemptAt: iso(row.firstAttemptAt),
    lastAttemptAt: iso(row.lastAttemptAt),
    nextRetryAt: iso(row.nextRetryAt),
    createdAt: row.createdAt.toISOString(),
    attempts: row.attempts.map((a): Required<DeliveryAttempt> => ({
      at: a.at,
      responseCode: a.responseCode,
      responseSnippet: a.responseSnippet,
      errorMessage: a.errorMessage,
      durationMs: a.durationMs,
      // Extensions (docs/webhooks.md, "The delivery log"): null on attempts recorded before them.
      errorClass: a.errorClass ?? null,
      resolvedIp: a.resolvedIp ?? null,
      timings: a.timings ?? null,
      retryAfterMs: a.retryAfterMs ?? null,
    })),
    ...(row.orderHead && row.orderHead !== row.id ? { waitingFor: row.orderHead } : {}),
  };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

const ERROR_CLASSES = everyMember<AttemptErrorClass>({
  dns: true,
  refused: true,
  tls: true,
  timeout: true,
  urlRule: true,
  tooLarge: true,
  network: true,
  unroutable: true,
  brokerRejected: true,
  exchangeNotFound: true,
  connectionFailed: true,
  tokenRequestFailed: true,
  clientCertificateExpired: true,
});

/** Every status a delivery can have (the log's status filter takes one). */
export const DELIVERY_STATUSES = everyMember<DeliveryStatus>({ pending: true, delivered: true, failed_permanent: true });

export const WEBHOOK_DELIVERY_SHAPE = readShape<WebhookDeliveryResponse>(
  'WebhookDelivery',
  'A delivery log row (spec 2.8), newest first in the log.',
  {
    id: id(WEBHOOK_IDS.delivery),
    eventId: described(orNull(str), 'null for test deliveries'),
    eventName: str,
    status: enumOf(DELIVERY_STATUSES),
    test: bool,
    attemptCount: int,
    firstAttemptAt: orNull(dateTime),
    lastAttemptAt: orNull(dateTime),
    nextRetryAt: orNull(dateTime),
    createdAt: dateTime,
    attempts: arrayOf(
      shapeOf<Required<DeliveryAttempt>>('One POST to the subscription URL.', {
        at: dateTime,
        responseCode: orNull(int),
        responseSnippet: orNull(str),
        errorMessage: orNull(str),
        durationMs: described(orNull(int), 'null when the worker stopped before recording the outcome'),
        errorClass: enumOf(
          [...ERROR_CLASSES, null],
          'Extension: why there was no (usable) answer; tooLarge also marks a response body over 64 KB; tokenRequestFailed: the OAuth2 token endpoint failed (its HTTP status in errorMessage), nothing was sent; clientCertificateExpired: the mTLS client certificate has expired, nothing was sent and no retry follows. null when answered, and on attempts older than the extension.',
        ),
        resolvedIp: described(orNull(str), 'Extension: the address connected to (or being connected to when it failed).'),
        timings: orNull(
          shapeOf<AttemptTimings>('Extension: milliseconds per phase; connect and tls are null on a kept-alive connection.', {
            dnsMs: orNull(num),
            connectMs: orNull(num),
            tlsMs: orNull(num),
            firstByteMs: orNull(num),
            totalMs: num,
          }),
        ),
        retryAfterMs: described(orNull(int), "Extension: the delay the answer's Retry-After set for the next attempt (clamped)."),
      }),
    ),
    waitingFor: optional(
      described(
        id(WEBHOOK_IDS.delivery),
        'Extension (ordered endpoints): present while this pending delivery waits its turn; the delivery at the head of the order, which must succeed or end for good first.',
      ),
    ),
  },
);

export const TEST_DELIVERY_SHAPE = readShape<TestDeliveryResponse>(
  'TestDelivery',
  'The queued test delivery; follow it in the delivery log.',
  {
    deliveryId: id(WEBHOOK_IDS.delivery),
    status: { const: 'pending' },
  },
);

export const RETRIED_DELIVERY_SHAPE = readShape<RetriedDeliveryResponse>(
  'RetriedDelivery',
  'Extension: the attempt queued now; follow it in the delivery log.',
  {
    deliveryId: id(WEBHOOK_IDS.delivery),
    status: { const: 'pending' },
    attempt: described(int, 'its webhook-retry-count (attempt numbers go on across retries and replays)'),
  },
);
