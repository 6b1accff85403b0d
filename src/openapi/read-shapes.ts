import type { JsonSchema } from './dto-schemas';

/**
 * The read shapes (spec 2, built by each module's `*.response.ts` mapper) as JSON Schemas. The
 * mappers return TypeScript interfaces, which leave nothing to introspect at run time, so their
 * schemas are written here, next to each other. Every shape is closed (additionalProperties: false)
 * and lists what the mapper always returns as required: the contract test
 * (test/e2e/openapi-contract.e2e-spec.ts) checks real responses against them, so a mapper that
 * gains, loses or retypes a field fails it until this file says the same.
 */

const str = { type: 'string' };
const text = (maxLength?: number) => (maxLength ? { type: 'string', maxLength } : str);
const orNull = (schema: JsonSchema): JsonSchema =>
  typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
const num = { type: 'number' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const dateTime = { type: 'string', format: 'date-time' };
const uri = { type: 'string', format: 'uri' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (items: JsonSchema) => ({ type: 'array', items });
const id = (prefix: string) => ({ type: 'string', pattern: `^${prefix}_`, examples: [`${prefix}_01JDZK4M8Y8Q5X7W2N3B4C5D6E`] });

/** A closed object: `required` names the fields the mapper always returns, `optional` the ones it may leave out. */
function shape(description: string, required: Record<string, JsonSchema>, optional: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    description,
    required: Object.keys(required),
    properties: { ...required, ...optional },
    additionalProperties: false,
  };
}

const otherAttribute = shape(
  'A labelled attribute (property and booking: label ≤ 100, value ≤ 500 characters each; jobs: label ≤ 60, value ≤ 100).',
  { label: str, value: { oneOf: [str, arrayOf(str)] } },
  { group: str, pictures: arrayOf(str) },
);

const jobTime = shape(
  'The job time object (spec 2.5).',
  { type: { enum: ['fixed', 'flexible'] }, startTime: dateTime },
  { endTime: orNull(dateTime), durationInHours: orNull(int), durationInMinutes: orNull(int) },
);

const job = shape(
  'A job request (spec 2.6): keyed by jobRequestId; the cleaner fields are null until a cleaner accepts.',
  {
    jobRequestId: id('job'),
    status: {
      enum: [1, 2, 3, 4, 5, 7, 8, 9],
      description:
        '1 sent, 2 accepted, 3 cancelled by the host, 4 declined by all, 5 in progress, 7 finished, 8 cancelled by the cleaner, 9 changes waiting for the cleaner',
    },
    jobType: { enum: ['fixed', 'flexible'] },
    title: str,
    note: orNull(str),
    createdTime: dateTime,
    scheduledStartTime: dateTime,
    scheduledEndTime: orNull(dateTime),
    actualStartTime: orNull(dateTime),
    actualEndTime: orNull(dateTime),
    hostId: str,
    propertyId: id('prop'),
    propertyTitle: str,
    address: shape('The property address; the service derives one line (AddressArray) and the country.', {
      street: orNull(str),
      apt: orNull(str),
      city: orNull(str),
      state: orNull(str),
      zip: orNull(str),
      country: orNull(str),
      AddressArray: arrayOf(str),
    }),
    location: {
      type: 'array',
      description: '[longitude, latitude] of the property',
      prefixItems: [orNull({ type: 'number' }), orNull({ type: 'number' })],
      minItems: 2,
      maxItems: 2,
    },
    checklists: { ...arrayOf(id('chk')), description: 'ids of the checklists copied onto the job' },
    cleanerId: orNull(str),
    cleanerEmail: orNull(str),
    cleanerName: orNull(str),
    offeredPrice: orNull({ type: 'number', minimum: 0 }),
    offeredPriceCurrency: orNull(str),
    verification: shape(
      'Progress of the job (spec 2.6); problems only when the cleaner reported any, distances only when a position was recorded.',
      {
        completedTaskCount: int,
        totalTaskCount: int,
        verificationPictureCount: int,
        requiredVerificationPictureCount: int,
        problemCount: int,
      },
      {
        problems: arrayOf(
          shape('A problem the cleaner reported (without its description and photos).', {
            severity: { type: 'integer', minimum: 0, maximum: 5 },
            status: { enum: ['open', 'inProgress', 'resolved', 'ignored'] },
            step: str,
            checklist: str,
            reportedAt: dateTime,
          }),
        ),
        startDistanceMeters: int,
        endDistanceMeters: int,
      },
    ),
  },
  { partnerBookingId: { ...id('bk'), description: 'the booking the job was created for (sourceBookingId), when linked' } },
);

const completedJob = {
  ...job,
  description: 'A finished job (jobRequest.completed): the job read shape plus every task of the job and whether it was completed.',
  required: [...(job.required as string[]), 'tasks'],
  properties: {
    ...(job.properties as object),
    tasks: arrayOf(
      shape('A task of the job, by taskId.', {
        taskId: id('task'),
        checklistId: { ...orNull(str), description: 'null for a one-off task' },
        label: str,
        sourceTaskId: orNull(str),
        completed: bool,
      }),
    ),
  },
};

/** A list response: the collection envelope of spec 1 (General conventions 6) around one read shape. */
export function pageOf(item: string): JsonSchema {
  return {
    type: 'object',
    description: `The collection envelope: pass nextCursor as the next request's cursor while hasMore is true. Items: ${item}.`,
    required: ['data', 'nextCursor', 'hasMore'],
    properties: { data: arrayOf(ref(item)), nextCursor: orNull(str), hasMore: bool },
    additionalProperties: false,
  };
}

export const READ_SHAPES: Record<string, JsonSchema> = {
  Health: shape('Service status (503 with status unavailable when PostgreSQL or Redis does not answer).', {
    status: { enum: ['ok', 'unavailable'] },
    version: str,
    checks: shape('Each dependency as the service last saw it.', { database: { enum: ['up', 'down'] }, redis: { enum: ['up', 'down'] } }),
  }),
  Property: shape('A property (spec 2.1). Fields the client never set are null; details.disableRemindersAutomation is never returned.', {
    propertyId: id('prop'),
    sourceId: str,
    name: str,
    note: { type: 'null', description: 'no write field sets a note' },
    pictureUrls: { ...arrayOf(uri), description: "the service's copies of the property's pictures (behind x-api-key)" },
    tags: orNull(arrayOf(str)),
    location: shape('Coordinates of the property.', {
      latitude: { type: 'number', minimum: -90, maximum: 90 },
      longitude: { type: 'number', minimum: -180, maximum: 180 },
    }),
    timeZone: str,
    address: { ...orNull(str), description: 'server-derived text' },
    type: orNull(str),
    countryCode: str,
    bedrooms: int,
    beds: int,
    bathrooms: int,
    bedDetails: orNull(
      arrayOf(
        shape('A bed.', {
          bedType: { enum: ['super-king', 'king', 'queen', 'twin', 'double', 'sofabed', 'child'] },
          twinable: bool,
          displayLabel: str,
          quantity: int,
        }),
      ),
    ),
    details: orNull(
      shape(
        'Property details as written.',
        {},
        {
          information: orNull(str),
          access: orNull(str),
          garbage: orNull(str),
          parking: orNull(str),
          wifiName: orNull(str),
          wifiPassword: orNull(str),
          wifiDescription: orNull(str),
          otherAttributes: orNull(arrayOf(ref('OtherAttribute'))),
        },
      ),
    ),
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  OtherAttribute: otherAttribute,
  PropertyPicture: shape("A property picture: the service's stored copy of the image at sourceUrl.", {
    pictureId: id('pic'),
    propertyId: id('prop'),
    sourceId: str,
    sourceUrl: uri,
    url: { ...uri, description: 'where the service serves its copy (also in the property pictureUrls)' },
    contentType: { type: 'string', examples: ['image/jpeg'] },
    byteSize: int,
    createdAt: dateTime,
  }),
  Checklist: shape('A checklist (spec 2.3) with its server-minted taskGroupId and taskId values.', {
    checklistId: id('chk'),
    propertyId: id('prop'),
    title: str,
    description: orNull(str),
    disabled: bool,
    disabledAt: orNull(dateTime),
    taskGroups: arrayOf(
      shape('A step of the checklist: tasks, or one illustration picture (create only).', {
        taskGroupId: id('tgrp'),
        title: str,
        sourceTaskGroupId: orNull(str),
        verificationRequired: bool,
        sourcePictureUrl: orNull(str),
        tasks: arrayOf(shape('A task.', { label: str, sourceTaskId: orNull(str), taskId: id('task') })),
      }),
    ),
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  Booking: shape("A booking (spec 2.4); guests' sourceId and sourcePictureUrl are never returned.", {
    bookingId: id('bk'),
    sourceBookingId: str,
    propertyId: id('prop'),
    status: { enum: [1, 2, 3], description: '1 created, 2 dates changed, 3 cancelled' },
    startDate: dateTime,
    endDate: dateTime,
    title: orNull(str),
    guestDetails: arrayOf(shape('A guest.', { firstName: str, lastName: orNull(str) })),
    numberOfGuests: int,
    tags: orNull(arrayOf(str)),
    otherAttributes: orNull(arrayOf(ref('OtherAttribute'))),
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  Reminder: shape('A reminder (spec 2.5); automatic ones are the turnover reminders the booking automation creates at check-out.', {
    reminderId: id('rem'),
    propertyId: id('prop'),
    title: str,
    date: dateTime,
    sourceBookingId: orNull(str),
    sourceId: orNull(str),
    actionable: bool,
    checklists: arrayOf(shape('A checklist of the reminder.', { checklistId: id('chk') })),
    jobRequestSettings: orNull(
      shape(
        'Pre-fills the job the reminder should turn into.',
        {},
        { time: jobTime, offeredPrice: { type: 'number', minimum: 0 }, offeredPriceCurrency: str, message: text(500) },
      ),
    ),
    automatic: bool,
    firedAt: { ...orNull(dateTime), description: 'when the reminder fired (reminder.due); null until then' },
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  JobRequest: job,
  CompletedJobRequest: completedJob,
  PaymentStatus: shape("A job's payment status.", {
    jobRequestId: id('job'),
    status: { enum: ['pending', 'failed', 'successful'] },
    description: orNull(str),
    updatedAt: dateTime,
  }),
  Comment: shape("A message in a job's chat; pictureUrl serves its image behind x-api-key.", {
    commentId: id('cmt'),
    jobRequestId: id('job'),
    authorKind: { enum: ['host', 'provider'] },
    authorEmail: orNull(str),
    message: orNull(str),
    languageCode: orNull(str),
    pictureUrl: orNull(uri),
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  CalendarFeed: shape("A calendar feed (issue 14, an extension of the spec): an iCal link the worker syncs into the property's bookings.", {
    id: id('cal'),
    propertyId: id('prop'),
    url: uri,
    label: orNull(str),
    checkInTime: {
      type: 'string',
      pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
      description: 'date-only stays start at this time, in the property time zone',
    },
    checkOutTime: {
      type: 'string',
      pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
      description: 'date-only stays end at this time, in the property time zone',
    },
    defaultNumberOfGuests: { type: 'integer', minimum: 1, maximum: 50 },
    skipBlocked: bool,
    status: {
      enum: ['pending', 'ok', 'failing'],
      description: 'pending until the first sync; failing from a failed sync until one succeeds',
    },
    lastSyncedAt: { ...orNull(dateTime), description: 'the last sync that read the calendar (a 304 included)' },
    lastError: { ...orNull(str), description: 'why the last sync failed, for the host; null after a success' },
    lastWarning: { ...orNull(str), description: 'events the last successful sync skipped, and why' },
    skippedEvents: { ...int, description: 'events of the last successful sync that could not be read' },
    bookingsImported: { ...int, description: 'bookings the feed keeps in sync' },
    consecutiveFailures: { ...int, description: 'failing syncs in a row; the third emits calendarFeed.failing' },
    nextSyncAt: dateTime,
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  WebhookSubscription: shape(
    'A webhook subscription (spec 2.7); the signing secret is only in the create and rotateSecret responses.',
    {
      id: id('sub'),
      url: uri,
      eventFilters: arrayOf(str),
      enabled: bool,
      maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
      createdAt: dateTime,
    },
    { disabledReason: { type: 'string', examples: ['auto_disabled_after_repeated_delivery_failures'] } },
  ),
  CreatedWebhookSubscription: shape('The created subscription with its signing secret (shown once; rotateSecret issues a new one).', {
    id: id('sub'),
    url: uri,
    eventFilters: arrayOf(str),
    enabled: bool,
    maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
    createdAt: dateTime,
    signingSecret: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: '32 bytes, base64url; used as the HMAC key as is' },
  }),
  RotatedSecret: shape('The new secret; the previous one keeps signing (second signature) until previousSecretExpiresAt.', {
    id: id('sub'),
    signingSecret: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    previousSecretExpiresAt: dateTime,
  }),
  TestDelivery: shape('The queued test delivery; follow it in the delivery log.', { deliveryId: id('whd'), status: { const: 'pending' } }),
  WebhookDelivery: shape('A delivery log row (spec 2.8), newest first in the log.', {
    id: id('whd'),
    eventId: { ...orNull(str), description: 'null for test deliveries' },
    eventName: str,
    status: { enum: ['pending', 'delivered', 'failed_permanent'] },
    test: bool,
    attemptCount: int,
    firstAttemptAt: orNull(dateTime),
    lastAttemptAt: orNull(dateTime),
    nextRetryAt: orNull(dateTime),
    createdAt: dateTime,
    attempts: arrayOf(
      shape('One POST to the subscription URL.', {
        at: dateTime,
        responseCode: orNull(int),
        responseSnippet: orNull(str),
        errorMessage: orNull(str),
        durationMs: { ...orNull(int), description: 'null when the worker stopped before recording the outcome' },
        errorClass: {
          enum: ['dns', 'refused', 'tls', 'timeout', 'urlRule', 'tooLarge', 'network', null],
          description:
            'Extension: why there was no (usable) answer; tooLarge also marks a response body over 64 KB. null when answered, and on attempts older than the extension.',
        },
        resolvedIp: { ...orNull(str), description: 'Extension: the address connected to (or being connected to when it failed).' },
        timings: {
          ...orNull(
            shape('Extension: milliseconds per phase; connect and tls are null on a kept-alive connection.', {
              dnsMs: orNull(num),
              connectMs: orNull(num),
              tlsMs: orNull(num),
              firstByteMs: orNull(num),
              totalMs: num,
            }),
          ),
        },
        retryAfterMs: { ...orNull(int), description: "Extension: the delay the answer's Retry-After set for the next attempt (clamped)." },
      }),
    ),
  }),
  LegacyBatchAccepted: shape('A stored legacy batch; its records are processed after this answer.', {
    batchId: id('lbat'),
    accepted: { type: 'integer', minimum: 1, maximum: 20 },
  }),
  LegacyBatch: shape("A legacy batch and each record's outcome, in the batch's order.", {
    batchId: id('lbat'),
    status: { enum: ['pending', 'processing', 'completed'] },
    accepted: { type: 'integer', minimum: 1, maximum: 20 },
    processed: int,
    createdAt: dateTime,
    completedAt: orNull(dateTime),
    records: arrayOf(
      shape(
        'One record: pending, succeeded (entityId names the resource) or failed (code and errors as its legacy.validationError carried them).',
        {
          clientRequestId: str,
          entity: { enum: ['property', 'checklist', 'booking', 'reminder', 'jobRequest'] },
          action: { enum: ['create', 'update', 'delete'] },
          status: { enum: ['pending', 'succeeded', 'failed'] },
          processedAt: orNull(dateTime),
        },
        { entityId: str, code: str, errors: arrayOf(shape('One failing field.', { pointer: str, detail: str })) },
      ),
    ),
  }),
  LegacyWebhook: shape(
    "The account's legacy webhook: every event of the account, unsigned.",
    { url: uri, enabled: bool, maxRetries: int, createdAt: dateTime, updatedAt: dateTime },
    { disabledReason: { type: 'string', examples: ['auto_disabled_after_repeated_delivery_failures'] } },
  ),
  LegacyValidationError: shape(
    'A legacy record that failed: the errors the Platform problem would have named (pointers into its data or changes).',
    {
      clientRequestId: str,
      entity: { enum: ['property', 'checklist', 'booking', 'reminder', 'jobRequest'] },
      action: { enum: ['create', 'update', 'delete'] },
      code: {
        type: 'string',
        description: 'the Platform problem code (validationFailed, objectStrict, notFound, conflict, …; legacyApiRetired at the sunset)',
      },
      errors: arrayOf(shape('One failing field.', { pointer: str, detail: str })),
    },
  ),
  WebhookDisabled: shape('Extension: the delivery engine disabled a subscription (clientRequestId is its id).', {
    subscriptionId: id('sub'),
    url: uri,
    reason: { enum: ['auto_disabled_after_repeated_delivery_failures', 'gone'] },
    disabledAt: dateTime,
    lastFailures: arrayOf(
      shape('A permanently failed delivery and its last attempt, newest first (up to 5).', {
        deliveryId: id('whd'),
        eventId: orNull(str),
        eventName: str,
        at: orNull(dateTime),
        responseCode: orNull(int),
        errorClass: orNull(str),
        errorMessage: orNull(str),
      }),
    ),
  }),
  WebhookRecovered: shape('Extension: a subscription the engine had disabled delivered again (clientRequestId is its id).', {
    subscriptionId: id('sub'),
    url: uri,
    darkSince: dateTime,
    recoveredAt: dateTime,
    deliveryId: id('whd'),
  }),
  RetriedDelivery: shape('Extension: the attempt queued now; follow it in the delivery log.', {
    deliveryId: id('whd'),
    status: { const: 'pending' },
    attempt: { ...int, description: 'its webhook-retry-count (attempt numbers go on across retries and replays)' },
  }),
  WebhookReplay: shape('Extension: a replay of the event log to a subscription, and its progress.', {
    id: id('rpl'),
    webhookId: id('sub'),
    status: { enum: ['running', 'completed', 'stopped'], description: 'stopped: the subscription was disabled meanwhile' },
    since: dateTime,
    until: dateTime,
    eventFilters: arrayOf(str),
    onlyFailed: bool,
    total: { ...int, description: 'deliveries to emit, counted when the replay started' },
    done: { ...int, description: 'deliveries emitted so far, each once, in event order' },
    failed: { ...int, description: 'of those, ended failed_permanent so far' },
    delivered: { ...int, description: 'of those, delivered so far' },
    skipped: { ...int, description: 'events passed over when reached (delivery already pending, or delivered with onlyFailed)' },
    createdAt: dateTime,
    finishedAt: orNull(dateTime),
  }),
  ReplayDryRun: shape('Extension: what a replay would emit now; nothing was started.', { dryRun: { const: true }, total: int }),
  WebhookReplayStarted: {
    oneOf: [ref('WebhookReplay'), ref('ReplayDryRun')],
    description: 'The replay started, or with dryRun the count only.',
  },
  // Event (the feed's envelope, one per results type): from the event catalogue, webhooks.ts eventFeedSchemas().
  Problem: {
    type: 'object',
    description: 'An RFC 9457 problem document (application/problem+json).',
    required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
    properties: {
      type: { ...uri, description: '{ERRORS_BASE_URL}/<code>' },
      title: str,
      status: int,
      detail: str,
      instance: { type: 'string', description: 'the request path' },
      code: { type: 'string', description: 'machine-readable: see the response descriptions for the codes of each status' },
      requestId: str,
      errors: arrayOf(
        shape('One field that failed.', {
          pointer: { type: 'string', description: 'JSON Pointer to the field, e.g. #/taskGroups/0/tasks/1/colour' },
          detail: str,
        }),
      ),
      existingId: { type: 'string', description: 'the subscription or booking that already exists (409 conflict)' },
    },
  },
};

for (const name of [
  'Property',
  'Checklist',
  'Booking',
  'Reminder',
  'JobRequest',
  'Comment',
  'WebhookSubscription',
  'WebhookDelivery',
  'CalendarFeed',
  'Event',
]) {
  READ_SHAPES[`${name}Page`] = pageOf(name);
}
