import type { components, paths, webhooks } from './generated/schema';

export type { components, paths, webhooks };

/** A schema of the document by name: `Schema<'Booking'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The problem document (RFC 9457) every error answers with. */
export type Problem = Schema<'Problem'>;

/** Every event name of the catalogue (the document's webhooks, one per event). */
export type EventName = keyof webhooks;

/** The body POSTed to a webhook for event `N`: the envelope of spec 6.1 with that event's results. */
export type WebhookPayloadOf<N extends EventName> = webhooks[N]['post'] extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** Any webhook body; narrow it by `eventName` (or with `isEvent`). */
export type WebhookPayload = { [N in EventName]: WebhookPayloadOf<N> }[EventName];

/** The `results` entries of event `N`: `EventResults<'booking.create'>` is the created booking's read shape. */
export type EventResults<N extends EventName> = WebhookPayloadOf<N> extends { results: Array<infer R> } ? R : never;

/** An event of the polling feed (GET /v1/events), a union discriminated by eventName. */
export type FeedEvent = Schema<'Event'>;

/** True when the payload is of event `name`, narrowing its results' type. */
export function isEvent<N extends EventName>(payload: { eventName: string }, name: N): payload is WebhookPayloadOf<N> & { eventName: N } {
  return payload.eventName === name;
}
