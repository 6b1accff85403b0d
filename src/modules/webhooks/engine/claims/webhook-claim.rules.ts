import type { EnvelopeSource } from '../../webhook-delivery.row';

/**
 * Pure rules of an attempt's claim: why one could not be claimed, and what a claimed attempt's
 * envelope is built from (its event, or a test delivery's stored payload), loaded with the claim.
 */

/**
 * Why a delivery job makes no attempt: the delivery is gone (subscription deleted), finished, the job is
 * a stale duplicate, another run holds this attempt's claim, or its signing secret does not open.
 */
export type DroppedReason = 'missing' | 'finished' | 'stale' | 'in_flight' | 'unsignable';

/** Why an attempt could not be claimed, from the delivery's row as it is now (undefined: gone). */
export function whyUnclaimed(row: { status: string; attemptCount: number } | undefined, expectedAttemptCount: number): DroppedReason {
  if (!row) return 'missing';
  if (row.status !== 'pending') return 'finished';
  if (row.attemptCount !== expectedAttemptCount) return 'stale';
  return 'in_flight';
}

/** The envelope source of an event delivery: the event row as the event log keeps it. */
export function eventEnvelopeSource(event: {
  accountId: string;
  clientRequestId: string;
  apiRequestId: string;
  createdAt: Date;
  eventName: string;
  results: unknown[];
}): EnvelopeSource {
  return {
    clientRequestId: event.clientRequestId,
    apiRequestId: event.apiRequestId,
    targetAccountId: event.accountId,
    createdAt: event.createdAt.toISOString(),
    eventName: event.eventName,
    results: event.results,
  };
}

/**
 * The envelope source of a test delivery. The API stores the synthetic payload in `test_payload`;
 * fields it left out fall back to the delivery row, so an older or partial payload still sends a
 * complete envelope.
 */
export function testEnvelopeSource(
  payload: Record<string, unknown> | null,
  delivery: { id: string; accountId: string; eventName: string; createdAt: Date },
): EnvelopeSource {
  const text = (key: string, fallback: string) => (typeof payload?.[key] === 'string' ? (payload[key] as string) : fallback);
  return {
    clientRequestId: text('clientRequestId', delivery.id),
    apiRequestId: text('apiRequestId', delivery.id),
    targetAccountId: delivery.accountId,
    createdAt: text('createdAt', delivery.createdAt.toISOString()),
    eventName: delivery.eventName,
    results: Array.isArray(payload?.results) ? (payload.results as unknown[]) : [],
  };
}
