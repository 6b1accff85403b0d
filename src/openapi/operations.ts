import { EXAMPLE, EXAMPLE_LEGACY_BATCH } from './examples';

/**
 * What the code cannot say about each route, in one table: the OpenAPI document takes the routes,
 * path parameters, query and body schemas, success status, x-api-key (@Public), Idempotency-Key
 * (@Idempotent) and multipart (@MultipartFile) from the code, and the rest from here.
 *
 * Adding a route: add an entry under its `METHOD /path` (path parameters in braces, as the document
 * writes them), with a summary, the response (a read shape of read-shapes.ts, `page` for a list,
 * `none` for 204), the problem statuses beyond the ones every route has (400, 401, 403, 429), and an
 * example request that works against a fresh account: the contract test sends it
 * (test/e2e/openapi-contract.e2e-spec.ts), after swapping the EXAMPLE ids for real ones. See
 * "Documenting a route" in docs/operations.md.
 */
export type ResponseDoc =
  | { schema: string; page?: false; description: string }
  | { schema: string; page: true; description: string }
  | { none: true; description: string }
  | { binary: string; description: string }
  | { json: true; description: string };

export interface ExampleRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export interface OperationDoc {
  summary: string;
  description?: string;
  response: ResponseDoc;
  /** Problem statuses beyond 400, 401, 403 and 429 (every authenticated route can answer those). */
  problems?: number[];
  example?: ExampleRequest;
}

const ok = (schema: string, description: string): ResponseDoc => ({ schema, description });
const page = (schema: string, description: string): ResponseDoc => ({ schema, page: true, description });
const none = (description = 'Done; no body.'): ResponseDoc => ({ none: true, description });

const E = EXAMPLE;
const property = { propertyId: E.propertyId };
const job = { jobRequestId: E.jobRequestId };
const webhook = { webhookId: E.webhookId };
const feed = { calendarFeedId: E.calendarFeedId };
const window = { dateFrom: '2030-07-01T00:00:00Z', dateTo: '2030-08-01T00:00:00Z' };

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /v1/health': {
    summary: 'Service health and deployed version',
    description: 'No x-api-key needed. 503 (same body, status unavailable) when PostgreSQL or Redis does not answer within a second.',
    response: ok('Health', 'Both dependencies answer.'),
    problems: [503],
  },
  'GET /v1/openapi.json': {
    summary: 'This OpenAPI 3.1 document',
    description: 'No x-api-key needed. The interactive reference at /docs reads the same document.',
    response: { json: true, description: 'The OpenAPI document.' },
  },

  'POST /v1/properties': {
    summary: 'Create a property',
    description: 'The root resource: create it before its pictures, checklists, bookings, reminders and jobs. Emits property.create.',
    response: ok('Property', 'The created property.'),
    problems: [409, 422],
    example: { body: E.propertyBody },
  },
  'GET /v1/properties': {
    summary: 'List properties',
    description: 'Ordered by propertyId (creation order).',
    response: page('Property', 'A page of properties.'),
    example: { query: { limit: '20' } },
  },
  'GET /v1/properties/{propertyId}': {
    summary: 'Get a property',
    response: ok('Property', 'The property.'),
    problems: [404],
    example: { params: property },
  },
  'PATCH /v1/properties/{propertyId}': {
    summary: 'Update a property',
    description: 'Any subset of the create fields; location needs both coordinates. Emits property.update when something changed.',
    response: ok('Property', 'The updated property.'),
    problems: [404],
    example: { params: property, body: { name: 'Villa Azur (sea view)', tags: ['sea-view', 'pool'] } },
  },
  'DELETE /v1/properties/{propertyId}': {
    summary: 'Delete a property',
    description:
      'Takes its pictures, checklists, bookings and reminders with it (one event each, then property.delete). 409 while a stay is ahead or a job is open on it.',
    response: none(),
    problems: [404, 409],
    example: { params: property },
  },

  'POST /v1/propertyPictures': {
    summary: 'Add a picture to a property',
    description:
      'The service downloads sourceUrl (https, public address, size and time limits), stores its own copy and serves it at url. 400 pictureDownloadFailed when the download fails.',
    response: ok('PropertyPicture', 'The stored picture.'),
    problems: [404],
    example: { body: { sourceId: 'living-room-1', sourceUrl: E.pictureSourceUrl, propertyId: E.propertyId } },
  },
  'GET /v1/propertyPictures/{pictureId}/content': {
    summary: "The picture's stored image",
    response: { binary: 'image/*', description: 'The image bytes, with their content type.' },
    problems: [404],
    example: { params: { pictureId: E.pictureId } },
  },
  'DELETE /v1/propertyPictures/{pictureId}': {
    summary: 'Delete a picture',
    response: none(),
    problems: [404],
    example: { params: { pictureId: E.pictureId } },
  },

  'POST /v1/checklists': {
    summary: 'Create a checklist',
    description: 'Every group carries tasks or one sourcePictureUrl, never both. taskGroupId and taskId are minted by the service.',
    response: ok('Checklist', 'The created checklist with its ids.'),
    problems: [404],
    example: { body: E.checklistBody },
  },
  'PATCH /v1/checklists/{checklistId}': {
    summary: 'Update a checklist',
    description: 'taskGroups, when sent, replaces every group and re-mints every taskGroupId and taskId.',
    response: ok('Checklist', 'The updated checklist.'),
    problems: [404, 409],
    example: { params: { checklistId: E.checklistId }, body: { title: 'Turnover clean (summer)' } },
  },
  'POST /v1/checklists/{checklistId}/disable': {
    summary: 'Disable a checklist',
    description: 'Jobs that copied it keep their copies.',
    response: ok('Checklist', 'The disabled checklist.'),
    problems: [404],
    example: { params: { checklistId: E.checklistId } },
  },
  'GET /v1/properties/{propertyId}/checklists': {
    summary: "List a property's checklists",
    description: 'Unpaginated (nextCursor null, hasMore false): the authoritative source of the taskId mapping.',
    response: page('Checklist', 'Every checklist of the property.'),
    problems: [404],
    example: { params: property },
  },

  'POST /v1/bookings': {
    summary: 'Create a booking',
    description:
      'Triggers the scheduling automation (a turnover reminder at check-out, unless the property disables it). A sourceBookingId already used by the account is a 409 conflict carrying the existing bookingId.',
    response: ok('Booking', 'The created booking (status 1).'),
    problems: [404, 409, 422],
    example: { body: E.bookingBody },
  },
  'GET /v1/bookings': {
    summary: 'List bookings overlapping a window',
    description:
      'Every booking arriving before dateTo and leaving after dateFrom, cancelled ones included unless filtered by status; by startDate.',
    response: page('Booking', 'A page of bookings.'),
    example: { query: { ...window, propertyId: E.propertyId } },
  },
  'GET /v1/bookings/{bookingId}': {
    summary: 'Get a booking',
    response: ok('Booking', 'The booking.'),
    problems: [404],
    example: { params: { bookingId: E.bookingId } },
  },
  'PATCH /v1/bookings/{bookingId}': {
    summary: 'Update a booking',
    response: ok('Booking', 'The updated booking.'),
    problems: [404, 409],
    example: { params: { bookingId: E.bookingId }, body: { numberOfGuests: 3, title: 'Family stay' } },
  },
  'PATCH /v1/bookings/{bookingId}/dates': {
    summary: "Change a booking's dates",
    description: 'Status 2; the turnover reminder moves with the check-out.',
    response: ok('Booking', 'The booking with its new dates.'),
    problems: [404, 409],
    example: { params: { bookingId: E.bookingId }, body: { startDate: '2030-07-11T15:00:00Z', endDate: '2030-07-16T10:00:00Z' } },
  },
  'POST /v1/bookings/{bookingId}/cancel': {
    summary: 'Cancel a booking',
    description: 'Status 3; stays in lists unless filtered by status. Its turnover reminder is removed.',
    response: ok('Booking', 'The cancelled booking.'),
    problems: [404, 409],
    example: { params: { bookingId: E.bookingId } },
  },
  'DELETE /v1/bookings/{bookingId}': {
    summary: 'Delete a booking',
    response: none(),
    problems: [404],
    example: { params: { bookingId: E.bookingId } },
  },

  'POST /v1/reminders': {
    summary: 'Create a reminder',
    response: ok('Reminder', 'The created reminder.'),
    problems: [404],
    example: { body: E.reminderBody },
  },
  'GET /v1/reminders': {
    summary: 'List reminders in a window',
    response: page('Reminder', 'A page of reminders, by date.'),
    example: { query: window },
  },
  'GET /v1/reminders/{reminderId}': {
    summary: 'Get a reminder',
    response: ok('Reminder', 'The reminder.'),
    problems: [404],
    example: { params: { reminderId: E.reminderId } },
  },
  'DELETE /v1/reminders/{reminderId}': {
    summary: 'Delete a reminder',
    response: none(),
    problems: [404],
    example: { params: { reminderId: E.reminderId } },
  },

  'POST /v1/jobRequests': {
    summary: 'Create a job request',
    description:
      "Invites the service providers; the property's details sent here update the property in the same transaction; checklists are copied onto the job. Emits jobRequest.created.",
    response: ok('JobRequest', 'The job (status 1).'),
    problems: [404, 409, 422],
    example: { body: E.jobBody },
  },
  'GET /v1/jobRequests': {
    summary: 'List job requests in a window',
    description: 'By scheduledStartTime, ties by id. status 1 finds jobs still needing a cleaner.',
    response: page('JobRequest', 'A page of jobs.'),
    example: { query: { ...window, status: '1' } },
  },
  'GET /v1/jobRequests/{jobRequestId}': {
    summary: 'Get a job request',
    response: ok('JobRequest', 'The job.'),
    problems: [404],
    example: { params: job },
  },
  'PATCH /v1/jobRequests/{jobRequestId}': {
    summary: 'Change a job request',
    description:
      'An accepted job (2) moves to 9 until the cleaner accepts the changes. Closed jobs (3, 4, 7, 8) refuse with 409 invalidState.',
    response: ok('JobRequest', 'The changed job.'),
    problems: [404, 409],
    example: { params: job, body: { offeredPrice: 95, message: 'Please also water the plants.' } },
  },
  'POST /v1/jobRequests/{jobRequestId}/oneOffTasks': {
    summary: 'Add or update one-off tasks',
    description: 'Tasks are matched by exact title: a known title keeps its id and gets the new note and picture.',
    response: ok('JobRequest', 'The job with its tasks.'),
    problems: [404, 409],
    example: { params: job, body: { tasks: [{ title: 'Replace the hallway bulb', note: 'Spare bulbs are in the storage room.' }] } },
  },
  'POST /v1/jobRequests/{jobRequestId}/cancel': {
    summary: 'Cancel a job request',
    description: 'Only before the job started (1, 2, 9 → 3). Emits jobRequest.canceled.',
    response: ok('JobRequest', 'The cancelled job.'),
    problems: [404, 409],
    example: { params: job },
  },
  'PATCH /v1/jobRequests/{jobRequestId}/paymentStatus': {
    summary: "Set a job's payment status",
    response: ok('PaymentStatus', 'The payment status.'),
    problems: [404],
    example: { params: job, body: { status: 'successful', description: 'Paid by bank transfer' } },
  },
  'GET /v1/jobRequests/{jobRequestId}/comments': {
    summary: "Read a job's chat",
    description: 'Unpaginated by cursor: offset and limit select the comments (nextCursor null, hasMore false).',
    response: page('Comment', 'The comments, oldest first.'),
    problems: [404],
    example: { params: job, query: { limit: '50' } },
  },
  'POST /v1/jobRequests/{jobRequestId}/comments': {
    summary: "Write in a job's chat",
    description:
      'JSON, or multipart/form-data with an image in the file part (checked by its bytes; 413 over the size cap). At least one of message or file.',
    response: ok('Comment', 'The comment.'),
    problems: [404],
    example: { params: job, body: { message: 'The key box code changed to 4821.', languageCode: 'en' } },
  },
  'GET /v1/jobRequests/{jobRequestId}/comments/{commentId}/picture': {
    summary: "A chat comment's image",
    response: { binary: 'image/*', description: 'The image bytes, with their content type.' },
    problems: [404],
    example: { params: { ...job, commentId: E.commentId } },
  },

  'POST /v1/webhooks': {
    summary: 'Subscribe a URL to events',
    description:
      'url must be https, a domain name that resolves to public addresses only (400 invalidWebhookUrl). One subscription per URL: 409 conflict with existingId. The signingSecret is returned only here and by rotateSecret.',
    response: ok('CreatedWebhookSubscription', 'The subscription with its signing secret.'),
    problems: [409],
    example: { body: { url: E.webhookUrl, eventFilters: ['property.*', 'jobRequest.*'], maxRetries: 5 } },
  },
  'GET /v1/webhooks': {
    summary: 'List webhook subscriptions',
    description: 'Unpaginated; secrets are never included.',
    response: page('WebhookSubscription', 'Every subscription of the account.'),
  },
  'PATCH /v1/webhooks/{webhookId}': {
    summary: 'Update a subscription',
    description: 'eventFilters replaces the list; enabled: true clears disabledReason and the failure counter; a new url keeps the secret.',
    response: ok('WebhookSubscription', 'The updated subscription.'),
    problems: [404, 409],
    example: { params: webhook, body: { eventFilters: ['*'], enabled: true } },
  },
  'DELETE /v1/webhooks/{webhookId}': {
    summary: 'Delete a subscription',
    response: none(),
    problems: [404],
    example: { params: webhook },
  },
  'POST /v1/webhooks/{webhookId}/test': {
    summary: 'Send a test delivery',
    description:
      'A synthetic payload flagged test: true, signed with the real secret, POSTed asynchronously; it shows in the delivery log, never in the events feed.',
    response: ok('TestDelivery', 'Queued.'),
    problems: [404, 409],
    example: { params: webhook, body: { eventName: 'property.create' } },
  },
  'GET /v1/webhooks/{webhookId}/deliveries': {
    summary: "A subscription's delivery log",
    description: 'Newest first; nextCursor is the last row id. An unknown cursor is a 400: restart without it.',
    response: page('WebhookDelivery', 'A page of deliveries.'),
    problems: [404],
    example: { params: webhook, query: { limit: '10' } },
  },
  'GET /v1/webhooks/{webhookId}/deliveries/{deliveryId}': {
    summary: 'One delivery with every attempt (extension)',
    description:
      "Each attempt's status, error class, resolved address and timings (docs/webhooks.md). Another subscription's delivery is a 404.",
    response: ok('WebhookDelivery', 'The delivery.'),
    problems: [404],
    example: { params: { ...webhook, deliveryId: E.deliveryId } },
  },
  'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry': {
    summary: 'Retry one delivery now (extension)',
    description:
      'A finished delivery starts a new round of attempts (same webhook-id, the next webhook-retry-count, a fresh retry budget); a pending one waiting for its retry goes now. 409 while an attempt is in flight or the subscription is disabled.',
    response: ok('RetriedDelivery', 'Queued.'),
    problems: [404, 409],
    example: { params: { ...webhook, deliveryId: E.deliveryId } },
  },
  'POST /v1/webhooks/{webhookId}/replay': {
    summary: 'Replay a window of the event log to a subscription (extension)',
    description:
      "Replays the events created in [since, until) (default until: now; since within the 90-day retention) that match eventFilters (default: the subscription's), in event order, at a bounded rate, by a worker job. Deliveries carry their original webhook-id and a new attempt number. onlyFailed: only events whose delivery ended failed_permanent or never happened. dryRun: the count only. One running replay per subscription (409 with existingId).",
    response: ok('WebhookReplayStarted', 'Started (or, with dryRun, counted).'),
    problems: [404, 409],
    example: { params: webhook, body: { since: new Date(Date.now() - 3_600_000).toISOString(), onlyFailed: true } },
  },
  'GET /v1/webhooks/{webhookId}/replays/{replayId}': {
    summary: "A replay's progress (extension)",
    response: ok('WebhookReplay', 'The replay.'),
    problems: [404],
    example: { params: { ...webhook, replayId: E.replayId } },
  },
  'POST /v1/webhooks/{webhookId}/rotateSecret': {
    summary: "Rotate a subscription's signing secret",
    description: 'For 24 hours deliveries carry both signatures (new first); then only the new one.',
    response: ok('RotatedSecret', 'The new secret.'),
    problems: [404],
    example: { params: webhook },
  },

  'POST /legacy/batch': {
    summary: 'Submit a legacy batch (deprecated)',
    description:
      'Legacy keys only (a Platform key gets 403 legacyKeyRequired). 1-20 records {clientRequestId, entity, action, entityId?, data?, changes?}; a malformed batch is a 400 at once, a well-formed one is stored and acknowledged (202), then its records are applied in order, each through the Platform route it stands for; each outcome reaches the legacy webhook (the resource event, or legacy.validationError). From the sunset every legacy route answers 410 legacyApiRetired. Every answer carries Deprecation, Sunset and Link (rel="deprecation"). See docs/legacy.md.',
    response: ok('LegacyBatchAccepted', 'Stored; processed after this answer.'),
    problems: [410],
    example: { body: EXAMPLE_LEGACY_BATCH },
  },
  'GET /legacy/batch/{batchId}': {
    summary: "A legacy batch's status and each record's outcome (deprecated)",
    description: 'For a client that lost a webhook. Legacy keys only.',
    response: ok('LegacyBatch', 'The batch.'),
    problems: [404, 410],
    example: { params: { batchId: EXAMPLE.legacyBatchId } },
  },
  'PUT /legacy/webhook': {
    summary: "Set the account's legacy webhook URL (deprecated)",
    description:
      'One per account; receives every event of the account (Platform calls included) with the Platform envelope byte for byte, unsigned (no webhook-signature), with the same retries. The URL rules of Platform subscriptions apply. PUT again to change the URL or re-enable it.',
    response: ok('LegacyWebhook', 'The legacy webhook.'),
    problems: [410],
    example: { body: { url: EXAMPLE.legacyWebhookUrl } },
  },
  'GET /legacy/webhook': {
    summary: "The account's legacy webhook (deprecated)",
    response: ok('LegacyWebhook', 'The legacy webhook.'),
    problems: [404, 410],
  },
  'GET /legacy/webhook/deliveries': {
    summary: "The legacy webhook's delivery log (deprecated)",
    description: 'Newest first; nextCursor is the last row id. 404 when no legacy webhook is set.',
    response: page('WebhookDelivery', 'A page of deliveries.'),
    problems: [404, 410],
    example: { query: { limit: '10' } },
  },
  'DELETE /legacy/webhook': {
    summary: "Remove the account's legacy webhook (deprecated)",
    description: 'Its pending deliveries and delivery log go with it.',
    response: none(),
    problems: [404, 410],
  },
  'POST /v1/properties/{propertyId}/calendarFeeds': {
    summary: "Add a listing's iCal link to a property",
    description:
      'Calendar feeds are an extension of the spec (docs/calendar-feeds.md). url: the iCal export link of an Airbnb, Vrbo or Booking.com listing (or any RFC 5545 calendar); https, a domain name resolving to public addresses only (400 invalidCalendarFeedUrl); webcal:// is read as https://. At most 10 feeds per property and one per url (409). The first sync is queued at once; then every CALENDAR_SYNC_INTERVAL_MS. Each event becomes a booking with sourceBookingId ical:<feedId>:<UID>.',
    response: ok('CalendarFeed', 'The feed, status pending until its first sync.'),
    problems: [404, 409],
    example: {
      params: property,
      body: { url: E.calendarFeedUrl, label: 'Airbnb', checkInTime: '16:00', checkOutTime: '11:00', defaultNumberOfGuests: 2 },
    },
  },
  'GET /v1/properties/{propertyId}/calendarFeeds': {
    summary: "A property's calendar feeds",
    description: 'Unpaginated (at most 10), in creation order.',
    response: page('CalendarFeed', 'Every feed of the property.'),
    problems: [404],
    example: { params: property },
  },
  'GET /v1/calendarFeeds/{calendarFeedId}': {
    summary: 'Get a calendar feed',
    description: 'status, lastSyncedAt, lastError and lastWarning tell how its syncs go.',
    response: ok('CalendarFeed', 'The feed.'),
    problems: [404],
    example: { params: feed },
  },
  'PATCH /v1/calendarFeeds/{calendarFeedId}': {
    summary: 'Update a calendar feed',
    description:
      'label (null clears it), checkInTime, checkOutTime, defaultNumberOfGuests, skipBlocked; applied from the next sync (new times move the future stays through the dates change). The url is fixed: add a feed for a new link.',
    response: ok('CalendarFeed', 'The updated feed.'),
    problems: [404],
    example: { params: feed, body: { label: 'Airbnb (main listing)', checkInTime: '15:00' } },
  },
  'DELETE /v1/calendarFeeds/{calendarFeedId}': {
    summary: 'Delete a calendar feed',
    description: 'The bookings it imported stay as they are; nothing syncs them from this feed any more.',
    response: none(),
    problems: [404],
    example: { params: feed },
  },
  'POST /v1/calendarFeeds/{calendarFeedId}/sync': {
    summary: 'Sync a calendar feed now',
    description: 'Queues a sync; status, lastSyncedAt and lastError on the feed tell when it ran and how it went.',
    response: ok('CalendarFeed', 'The feed as it is now; the sync runs in the worker.'),
    problems: [404],
    example: { params: feed },
  },

  'GET /v1/events': {
    summary: "The account's event feed",
    description:
      'Oldest first; pass the last id seen as after. The backfill source for missed webhooks: every event a subscription could receive is here (test deliveries never are).',
    response: page('Event', 'A page of events.'),
    example: { query: { limit: '100' } },
  },
};
