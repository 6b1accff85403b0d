import { dateTime, id, str } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { EventEntity } from './event.entity';
import { EVENT_IDS } from './events.ids';

/** The event envelope of spec 6.1 (without notifiedAt, which webhooks stamp per attempt). */
export interface EventResponse {
  id: string;
  eventName: string;
  createdAt: string;
  clientRequestId: string;
  apiRequestId: string;
  targetAccountId: string;
  results: unknown[];
}

export function toEventResponse(event: EventEntity): EventResponse {
  return {
    id: event.id,
    eventName: event.eventName,
    createdAt: event.createdAt.toISOString(),
    clientRequestId: event.clientRequestId,
    apiRequestId: event.apiRequestId,
    targetAccountId: event.accountId,
    results: event.results,
  };
}

export const EVENT_SHAPE = readShape<EventResponse>(
  'Event',
  'An event of the feed: the envelope of spec 6.1 without notifiedAt (stamped per webhook attempt).',
  {
    id: id(EVENT_IDS.event),
    eventName: str,
    createdAt: dateTime,
    clientRequestId: { type: 'string', description: "the originating request's Idempotency-Key, else req_<x-request-id>" },
    apiRequestId: { type: 'string', description: "the originating request's x-request-id" },
    targetAccountId: str,
    results: { type: 'array', description: 'the changed resources in their read shape (see the webhooks of this document)', items: {} },
  },
);
