import { SHAPE_EXAMPLES } from './examples';
import type { JsonSchema } from './dto-schemas';

/**
 * The webhook deliveries (spec 6) as OpenAPI `webhooks`: one entry per event name of
 * docs/events.md, each a signed POST of the event envelope whose results hold the read shape
 * named here. Adding an event: add it here and to docs/events.md.
 */
export const EVENT_RESULTS: Record<string, string> = {
  'property.create': 'Property',
  'property.update': 'Property',
  'property.delete': 'Property',
  'propertyPicture.create': 'PropertyPicture',
  'propertyPicture.delete': 'PropertyPicture',
  'checklist.create': 'Checklist',
  'checklist.update': 'Checklist',
  'checklist.disable': 'Checklist',
  'checklist.delete': 'Checklist',
  'booking.create': 'Booking',
  'booking.update': 'Booking',
  'booking.changeDates': 'Booking',
  'booking.cancel': 'Booking',
  'booking.delete': 'Booking',
  'reminder.create': 'Reminder',
  'reminder.update': 'Reminder',
  'reminder.delete': 'Reminder',
  'jobRequest.created': 'JobRequest',
  'jobRequest.updated': 'JobRequest',
  'jobRequest.changesPending': 'JobRequest',
  'jobRequest.canceled': 'JobRequest',
  'jobRequest.paymentStatusChanged': 'PaymentStatus',
  'jobRequest.accepted': 'JobRequest',
  'jobRequest.declined': 'JobRequest',
  'jobRequest.started': 'JobRequest',
  'jobRequest.completed': 'CompletedJobRequest',
  'jobRequest.canceledByCleaner': 'JobRequest',
  'comment.new': 'Comment',
  'legacy.validationError': 'LegacyValidationError',
  'calendarFeed.failing': 'CalendarFeed',
  'calendarFeed.recovered': 'CalendarFeed',
  // Operational events of the delivery engine (extension, docs/webhooks.md): never sent to the subscription they are about.
  'webhook.disabled': 'WebhookDisabled',
  'webhook.recovered': 'WebhookRecovered',
};

const headerParam = (name: string, description: string, schema: JsonSchema, example: unknown) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
  example,
});

export const WEBHOOK_HEADERS = [
  headerParam(
    'webhook-id',
    'The delivery id: unique per (event, subscription), stable across retries. Dedupe by it.',
    { type: 'string', pattern: '^whd_' },
    'whd_01JDZK8W7X8Y9Z0A1B2C3D4E5F',
  ),
  headerParam(
    'webhook-timestamp',
    'Unix seconds of this attempt; reject deliveries more than 5 minutes from your clock.',
    { type: 'string', pattern: '^\\d+$' },
    '1908437400',
  ),
  headerParam(
    'webhook-signature',
    "v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.rawBody, keyed with the signingSecret's ASCII bytes>; during a rotation two space-delimited values (new first). Accept if any matches; compare in constant time over the raw bytes.",
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)?$' },
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
  headerParam('webhook-retry-count', '0 on the first attempt, then 1, 2, …', { type: 'string', pattern: '^\\d+$' }, '0'),
  headerParam('webhook-max-retries', "The subscription's maxRetries.", { type: 'string', pattern: '^\\d+$' }, '5'),
];

function envelope(resultSchema: string): JsonSchema {
  return {
    type: 'object',
    required: ['clientRequestId', 'apiRequestId', 'targetAccountId', 'createdAt', 'eventName', 'results', 'notifiedAt'],
    properties: {
      clientRequestId: { type: 'string', description: "the originating request's Idempotency-Key, else req_<x-request-id>" },
      apiRequestId: { type: 'string', description: "the originating request's x-request-id" },
      targetAccountId: { type: 'string' },
      createdAt: { type: 'string', format: 'date-time', description: 'when the change committed: order by it' },
      eventName: { type: 'string' },
      results: { type: 'array', items: { $ref: `#/components/schemas/${resultSchema}` } },
      notifiedAt: { type: 'string', format: 'date-time', description: 'stamped per attempt: bytes and signature differ between retries' },
      test: { const: true, description: 'only on test deliveries (POST /v1/webhooks/{webhookId}/test)' },
    },
  };
}

export function webhooksSection(): Record<string, object> {
  return Object.fromEntries(
    Object.entries(EVENT_RESULTS).map(([eventName, resultSchema]) => [
      eventName,
      {
        post: {
          summary: `${eventName} (results: ${resultSchema})`,
          description:
            'POSTed to every enabled subscription whose eventFilters match, signed (Standard Webhooks). Answer any 2xx within 10 seconds; anything else is retried with exponential backoff from 30 s up to maxRetries. Ordering is not guaranteed: order by createdAt, dedupe by webhook-id. Missed events: GET /v1/events. The legacy webhook (PUT /legacy/webhook) receives every event with the same body, without webhook-signature.',
          tags: ['Webhook deliveries'],
          parameters: WEBHOOK_HEADERS,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: envelope(resultSchema),
                example: {
                  clientRequestId: 'req_7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
                  apiRequestId: '7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
                  targetAccountId: 'acct_01JDZK3A1B2C3D4E5F6G7H8J9K',
                  createdAt: '2030-06-20T09:30:00.000Z',
                  eventName,
                  results: [SHAPE_EXAMPLES[resultSchema] ?? SHAPE_EXAMPLES.JobRequest],
                  notifiedAt: '2030-06-20T09:30:00.120Z',
                },
              },
            },
          },
          responses: {
            '2XX': { description: 'Received. Any other answer, a time-out (10 s) or a network failure is a failed attempt.' },
          },
        },
      },
    ]),
  );
}
