import type { BookingResponse } from '../bookings/booking.response';
import type { CalendarFeedResponse } from '../calendar-feeds/calendar-feed.response';
import type { ChecklistResponse } from '../checklists/checklist.response';
import type { CommentResponse } from '../job-requests/chat/comment.response';
import type { CompletedJobResponse, JobRequestResponse, PaymentStatusResponse } from '../job-requests/job-request.response';
import type { LegacyRecordFailure } from '../legacy/legacy.rules';
import type { PropertyPictureResponse } from '../properties/property-picture.response';
import type { PropertyResponse } from '../properties/property.response';
import type { ReminderResponse } from '../reminders/reminder.response';
import type { WebhookDisabledResult, WebhookRecoveredResult } from '../webhooks/delivery/webhook-operational-events.rules';

/**
 * The types an event's `results` can hold, by the name of their schema in the OpenAPI document
 * (components/schemas): each is the read shape its module's mapper returns.
 */
export interface EventPayloads {
  Property: PropertyResponse;
  PropertyPicture: PropertyPictureResponse;
  Checklist: ChecklistResponse;
  Booking: BookingResponse;
  Reminder: ReminderResponse;
  JobRequest: JobRequestResponse;
  CompletedJobRequest: CompletedJobResponse;
  PaymentStatus: PaymentStatusResponse;
  Comment: CommentResponse;
  LegacyValidationError: LegacyRecordFailure;
  CalendarFeed: CalendarFeedResponse;
  WebhookDisabled: WebhookDisabledResult;
  WebhookRecovered: WebhookRecoveredResult;
}

export interface EventDescription {
  /** The schema of each entry of `results`. */
  readonly payload: keyof EventPayloads;
  /** What publishes it (docs/events.md, "when"; the webhook's description in the OpenAPI document). */
  readonly when: string;
  /** What `results` holds (docs/events.md). */
  readonly results: string;
}

/**
 * Every event the service publishes: the one list that `EventsService.publish` accepts names from,
 * the OpenAPI document's `webhooks` and events feed schema are built from, and docs/events.md's
 * tables are generated from (`npm run docs:events`). Adding an event: add it here, then run that
 * script. In docs/events.md order.
 */
export const EVENT_CATALOGUE = {
  'property.create': {
    payload: 'Property',
    when: '`POST /v1/properties` succeeded (not on an idempotent replay)',
    results: '`[property]`: as in the 201 response',
  },
  'property.update': {
    payload: 'Property',
    when: '`PATCH /v1/properties/{propertyId}` with at least one field succeeded (an empty body changes nothing and writes no event)',
    results: '`[property]`: the property after the update',
  },
  'property.delete': {
    payload: 'Property',
    when: '`DELETE /v1/properties/{propertyId}` succeeded; written after the `propertyPicture.delete`, `checklist.delete`, `booking.delete` and `reminder.delete` events of what it took with it',
    results: '`[property]`: the property as it was just before deletion (its `pictureUrls` included)',
  },
  'propertyPicture.create': {
    payload: 'PropertyPicture',
    when: '`POST /v1/propertyPictures` succeeded (the image was downloaded and stored)',
    results: '`[picture]`: as in the 201 response',
  },
  'propertyPicture.delete': {
    payload: 'PropertyPicture',
    when: "`DELETE /v1/propertyPictures/{pictureId}`, or its property was deleted (one event per picture, in the property delete's transaction)",
    results: '`[picture]`: the picture as it was',
  },
  'checklist.create': {
    payload: 'Checklist',
    when: '`POST /v1/checklists` succeeded',
    results: '`[checklist]`: the created checklist, as in the 201 response',
  },
  'checklist.update': {
    payload: 'Checklist',
    when: '`PATCH /v1/checklists/{checklistId}` with at least one field',
    results: '`[checklist]`: the checklist after the update (with re-minted ids when `taskGroups` was sent)',
  },
  'checklist.disable': {
    payload: 'Checklist',
    when: '`POST /v1/checklists/{checklistId}/disable` on an enabled checklist',
    results: '`[checklist]`: with `disabled: true` and `disabledAt`',
  },
  'checklist.delete': {
    payload: 'Checklist',
    when: "its property was deleted (`DELETE /v1/properties/{propertyId}`); one event per checklist, in the property delete's transaction",
    results: '`[checklist]`: the checklist as it was just before deletion',
  },
  'booking.create': {
    payload: 'Booking',
    when: '`POST /v1/bookings` succeeded (not on an idempotent replay)',
    results: '`[booking]`: as in the 201 response',
  },
  'booking.update': {
    payload: 'Booking',
    when: '`PATCH /v1/bookings/{bookingId}` with at least one field',
    results: '`[booking]`: the booking after the update',
  },
  'booking.changeDates': {
    payload: 'Booking',
    when: '`PATCH /v1/bookings/{bookingId}/dates` succeeded (status 2)',
    results: '`[booking]`: with its new dates and status 2',
  },
  'booking.cancel': {
    payload: 'Booking',
    when: '`POST /v1/bookings/{bookingId}/cancel` on a booking not yet cancelled',
    results: '`[booking]`: with status 3',
  },
  'booking.delete': {
    payload: 'Booking',
    when: '`DELETE /v1/bookings/{bookingId}`, or its property was deleted (one event per booking, oldest first, before `property.delete`)',
    results: '`[booking]`: the booking as it was just before deletion',
  },
  'jobRequest.created': {
    payload: 'JobRequest',
    when: "`POST /v1/jobRequests` succeeded (not on an idempotent replay); written after the `property.update` of the job's property details, when it sent any",
    results: '`[job]`: the snapshot, as in the 201 response',
  },
  'jobRequest.updated': {
    payload: 'JobRequest',
    when: '`PATCH /v1/jobRequests/{id}` or `POST …/oneOffTasks` changed something a provider sees (not for equal values, an empty body, property details or `receiveUpdates` alone)',
    results: '`[job]`: after the change',
  },
  'jobRequest.changesPending': {
    payload: 'JobRequest',
    when: 'right after `jobRequest.updated`, when that change moved an accepted job (2) to 9',
    results: '`[job]`: status 9, cleaner still assigned',
  },
  'jobRequest.canceled': {
    payload: 'JobRequest',
    when: '`POST /v1/jobRequests/{id}/cancel` (1, 2 or 9 → 3)',
    results: '`[job]`: status 3',
  },
  'jobRequest.paymentStatusChanged': {
    payload: 'PaymentStatus',
    when: '`PATCH /v1/jobRequests/{id}/paymentStatus` set another status or description',
    results: '`[payment]`: `{jobRequestId, status, description, updatedAt}`, as in the response',
  },
  'jobRequest.accepted': {
    payload: 'JobRequest',
    when: 'a provider accepted (1 → 2), or the cleaner accepted the changes (9 → 2)',
    results: '`[job]`',
  },
  'jobRequest.declined': {
    payload: 'JobRequest',
    when: 'a provider declined (1 → 1, or 1 → 4 when every invited provider has), or the cleaner declined the changes (9 → 1)',
    results: '`[job]`',
  },
  'jobRequest.started': {
    payload: 'JobRequest',
    when: 'the cleaner started (2 → 5)',
    results: '`[job]`: with `actualStartTime` (and `startDistanceMeters` when a position was reported)',
  },
  'jobRequest.completed': {
    payload: 'CompletedJobRequest',
    when: 'the cleaner completed (5 → 7)',
    results:
      '`[job + tasks]`: the snapshot plus `tasks`, every task of the job in order, `{taskId, checklistId (null for a one-off task), label, sourceTaskId, completed}`: completion reported by `taskId`',
  },
  'jobRequest.canceledByCleaner': {
    payload: 'JobRequest',
    when: 'the cleaner cancelled (2 or 9 → 8)',
    results: '`[job]`',
  },
  'comment.new': {
    payload: 'Comment',
    when: "a provider wrote in the job's chat (the host's own comments write none)",
    results: '`[comment]`: the comment record of `docs/job-requests.md`',
  },
  'reminder.create': {
    payload: 'Reminder',
    when: "`POST /v1/reminders` succeeded, or the scheduling automation created a booking's turnover reminder (in the booking's transaction, after `booking.create`)",
    results: '`[reminder]`: as in the 201 response',
  },
  'reminder.update': {
    payload: 'Reminder',
    when: "the automation moved a turnover reminder to its booking's new check-out (after `booking.changeDates`)",
    results: '`[reminder]`: with its new `date` and `firedAt: null`',
  },
  'reminder.due': {
    payload: 'Reminder',
    when: 'the reminder\'s `date` came (written by the worker, once per reminder and date; see `docs/reminders.md`, "Firing")',
    results: '`[reminder]`: with `firedAt` set',
  },
  'reminder.delete': {
    payload: 'Reminder',
    when: '`DELETE /v1/reminders/{reminderId}`; or the automation removed a turnover reminder (after `booking.cancel` / `booking.delete`); or its property was deleted (one event per reminder, after the `booking.delete` events, before `property.delete`)',
    results: '`[reminder]`: the reminder as it was just before deletion',
  },
  'legacy.validationError': {
    payload: 'LegacyValidationError',
    when: 'a legacy record failed (its body broke the Platform DTO, its entity was not found, a conflict…), or was still pending at the sunset (`code: legacyApiRetired`)',
    results:
      "`[{clientRequestId, entity, action, code, errors: [{pointer, detail}]}]`: `code` and `errors` as the Platform problem would have named them (pointers into the record's `data` or `changes`)",
  },
  'calendarFeed.failing': {
    payload: 'CalendarFeed',
    when: 'the third failing sync in a row (once per streak), in the transaction that records it',
    results: '`[feed]`: `status: failing`, `lastError`, `consecutiveFailures: 3`',
  },
  'calendarFeed.recovered': {
    payload: 'CalendarFeed',
    when: 'the first successful sync after `calendarFeed.failing`',
    results: '`[feed]`: `status: ok`, `lastError: null`',
  },
  'webhook.disabled': {
    payload: 'WebhookDisabled',
    when: 'the engine disabled a subscription: 10 consecutive permanently failed deliveries, or a 410 Gone',
    results:
      '`{subscriptionId, url, reason, disabledAt, lastFailures: [{deliveryId, eventId, eventName, at, responseCode, errorClass, errorMessage}]}` (up to 5, newest first)',
  },
  'webhook.recovered': {
    payload: 'WebhookRecovered',
    when: 'the first delivered (non-test) delivery of a subscription the engine had disabled, once re-enabled',
    results: '`{subscriptionId, url, darkSince, recoveredAt, deliveryId}`',
  },
} as const satisfies Record<string, EventDescription>;

export type EventName = keyof typeof EVENT_CATALOGUE;

/** Each event's `results` entry type: `EventCatalogue['property.create']` is PropertyResponse. */
export type EventCatalogue = { [N in EventName]: EventPayloads[(typeof EVENT_CATALOGUE)[N]['payload']] };

/** The events whose `results` entries are exactly T (a helper that publishes one resource's events takes these). */
export type EventsCarrying<T> = {
  [N in EventName]: [EventCatalogue[N]] extends [T] ? ([T] extends [EventCatalogue[N]] ? N : never) : never;
}[EventName];

export const EVENT_NAMES = Object.keys(EVENT_CATALOGUE) as EventName[];
