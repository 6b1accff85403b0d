import { SHAPE_EXAMPLES } from './examples';
import { DECLARED } from '../modules/modules';
import { WEBHOOK_IDS } from '../modules/webhooks/webhooks.ids';
import type { JsonSchema } from './dto-schemas';
import { EVENT_SHAPE } from '../modules/events/event.response';

/** The events of one results type (by its schema's name): an envelope schema each (`BookingEvent` for the booking.* events). */
function byPayload(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [name, { payload }] of Object.entries(DECLARED.events)) groups.set(payload.name, [...(groups.get(payload.name) ?? []), name]);
  return groups;
}

const envelopeName = (payload: string) => `${payload}Event`;

/**
 * The events feed's schemas (GET /v1/events), from the event catalogue: `Event` is one of the
 * envelopes, told apart by `eventName` (a discriminator), each with its names and the schema of its
 * results, so a client can type `results` by `eventName`.
 */
export function eventFeedSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const mapping: Record<string, string> = {};
  // The envelope's fields as EventResponse declares them; eventName and results narrowed per payload.
  const envelope = (EVENT_SHAPE.schema as { properties: Record<string, JsonSchema> }).properties;
  for (const [payload, names] of byPayload()) {
    schemas[envelopeName(payload)] = {
      ...EVENT_SHAPE.schema,
      description: `An event of the feed whose results are ${payload} (${names.join(', ')}): the envelope of spec 6.1 without notifiedAt (stamped per webhook attempt).`,
      properties: {
        ...envelope,
        eventName: { enum: names },
        results: { type: 'array', items: { $ref: `#/components/schemas/${payload}` } },
      },
    };
    for (const name of names) mapping[name] = `#/components/schemas/${envelopeName(payload)}`;
  }
  schemas.Event = {
    description: 'An event of the feed: `eventName` tells which results it carries (docs/events.md lists every event).',
    oneOf: [...byPayload().keys()].map((payload) => ({ $ref: `#/components/schemas/${envelopeName(payload)}` })),
    discriminator: { propertyName: 'eventName', mapping },
  };
  return schemas;
}

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
    { type: 'string', pattern: `^${WEBHOOK_IDS.delivery.prefix}_` },
    DECLARED.exampleIds.deliveryId,
  ),
  headerParam(
    'webhook-timestamp',
    'Unix seconds of this attempt; reject deliveries more than 5 minutes from your clock.',
    { type: 'string', pattern: '^\\d+$' },
    '1908437400',
  ),
  headerParam(
    'webhook-signature',
    'v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.rawBody, keyed with the signingSecret\'s ASCII bytes>; during a rotation two space-delimited values (new first). Accept if any matches; compare in constant time over the raw bytes. Extension: a subscription with signatureSchemes ["v1", "v1a"] also gets v1a,<base64 ed25519 signature of the same content> values, verifiable with its publicKey.',
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)?$' },
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
  headerParam('webhook-retry-count', '0 on the first attempt, then 1, 2, …', { type: 'string', pattern: '^\\d+$' }, '0'),
  headerParam('webhook-max-retries', "The subscription's maxRetries.", { type: 'string', pattern: '^\\d+$' }, '5'),
];

function envelope(eventName: string, resultSchema: string): JsonSchema {
  return {
    type: 'object',
    required: ['clientRequestId', 'apiRequestId', 'targetAccountId', 'createdAt', 'eventName', 'results', 'notifiedAt'],
    properties: {
      clientRequestId: { type: 'string', description: "the originating request's Idempotency-Key, else req_<x-request-id>" },
      apiRequestId: { type: 'string', description: "the originating request's x-request-id" },
      targetAccountId: { type: 'string' },
      createdAt: { type: 'string', format: 'date-time', description: 'when the change committed: order by it' },
      eventName: { const: eventName },
      results: { type: 'array', items: { $ref: `#/components/schemas/${resultSchema}` } },
      notifiedAt: { type: 'string', format: 'date-time', description: 'stamped per attempt: bytes and signature differ between retries' },
      test: { const: true, description: 'only on test deliveries (POST /v1/webhooks/{webhookId}/test)' },
    },
  };
}

export function webhooksSection(): Record<string, object> {
  return Object.fromEntries(
    Object.entries(DECLARED.events).map(([eventName, { payload, when }]) => {
      const resultSchema = payload.name;
      return [
        eventName,
        {
          post: {
            summary: `${eventName} (results: ${resultSchema})`,
            description:
              `When: ${when}. ` +
              'POSTed to every enabled subscription whose eventFilters match, signed (Standard Webhooks). Answer any 2xx within 10 seconds; anything else is retried with exponential backoff from 30 s up to maxRetries. Ordering is not guaranteed: order by createdAt, dedupe by webhook-id. Missed events: GET /v1/events. The legacy webhook (PUT /legacy/webhook) receives every event with the same body, without webhook-signature.',
            tags: ['Webhook deliveries'],
            parameters: WEBHOOK_HEADERS,
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: envelope(eventName, resultSchema),
                  example: {
                    clientRequestId: 'req_7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
                    apiRequestId: '7f0c2a4e-2f61-4d89-a8a4-3b1d2b9f5c11',
                    targetAccountId: DECLARED.exampleIds.accountId,
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
      ];
    }),
  );
}
