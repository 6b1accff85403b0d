import { EventEntity } from './event.entity';

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
