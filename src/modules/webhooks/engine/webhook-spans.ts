import { SpanHandle, tracing } from '../../../platform/tracing/tracing';
import type { DeliveryWork } from '../webhook-delivery.row';
import type { AttemptReport } from './sending/webhook-delivery.rules';

/**
 * The engine's spans (docs/operations.md "Traces" lists them): each continues the trace of the request
 * that wrote its event (the outbox row's traceparent), whichever worker runs it and however much later.
 * Attributes are ids, counts and outcomes: never a secret, a URL or a body.
 */

/** An event's fan-out, seen from the event's trace: the dispatch transaction that created its deliveries. */
export function dispatchSpans(
  events: ReadonlyArray<{ id: string; eventName: string; traceparent: string | null }>,
  rows: ReadonlyArray<{ id: string; eventId: string | null }>,
  created: ReadonlyArray<{ id: string }>,
  startTime: number,
): void {
  if (!tracing.enabled) return;
  const endTime = performance.now();
  // The rows the fan-out meant to insert, less those that existed already (a second dispatch of an event).
  const inserted = new Set(created.map((delivery) => delivery.id));
  const fanOut = new Map<string, number>();
  for (const row of rows) if (row.eventId && inserted.has(row.id)) fanOut.set(row.eventId, (fanOut.get(row.eventId) ?? 0) + 1);
  for (const event of events) {
    tracing.recordSpan('webhook.dispatch', {
      parent: event.traceparent,
      startTime,
      endTime,
      attributes: {
        'webhook.event.id': event.id,
        'webhook.event.name': event.eventName,
        'webhook.dispatch.deliveries': fanOut.get(event.id) ?? 0,
        'webhook.dispatch.events': events.length,
      },
    });
  }
}

/** Each claimed attempt's claim, in its event's trace (a batch's claim is one statement for all of them). */
export function claimSpans(works: readonly DeliveryWork[], startTime: number): void {
  if (!tracing.enabled) return;
  const endTime = performance.now();
  for (const work of works) {
    tracing.recordSpan('webhook.claim', {
      parent: work.envelopeSource.traceparent,
      startTime,
      endTime,
      attributes: { ...ids(work), 'webhook.claim.batch': works.length },
    });
  }
}

/**
 * One attempt, `fn`, from its start (admission's wait included) to its record and the next attempt's job:
 * in its event's trace, linked to the attempt before it (`previous`, which a retry's job carries).
 */
export function tracedAttempt<T>(
  work: DeliveryWork,
  startTime: number,
  previous: string | undefined,
  fn: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return tracing.inSpan('webhook.attempt', NONE, fn);
  return tracing.inSpan(
    'webhook.attempt',
    {
      parent: work.envelopeSource.traceparent,
      links: [previous],
      kind: 'client',
      startTime,
      attributes: { ...ids(work), 'webhook.attempt': work.attemptCount + 1, 'webhook.event.name': work.eventName },
    },
    fn,
  );
}

const NONE = {};

/** What the attempt's POST came to (set once it ended). */
export function attemptOutcome(span: SpanHandle, sent: { report: AttemptReport; durationMs: number | null }): void {
  if (!tracing.enabled) return;
  span.set({
    'webhook.outcome': sent.report.outcome,
    'webhook.error_class': sent.report.errorClass ?? undefined,
    'http.response.status_code': sent.report.responseCode ?? undefined,
    'webhook.duration_ms': sent.durationMs ?? undefined,
  });
}

function ids(work: DeliveryWork) {
  return {
    'webhook.subscription.id': work.subscriptionId,
    'webhook.delivery.id': work.id,
    // The webhook-id header the receiver sees: the delivery id, stable across retries.
    'webhook.id': work.id,
    'webhook.event.id': work.eventId ?? undefined,
  };
}
