import { DeliveryAttempt, DeliveryStatus, WebhookDeliveryEntity } from '../webhook-delivery.entity';

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
  };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
