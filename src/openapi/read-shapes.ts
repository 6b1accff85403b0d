import { HEALTH_SHAPE } from '../modules/health/health.service';
import { BOOKING_SHAPE } from '../modules/bookings/booking.response';
import { CALENDAR_FEED_SHAPE } from '../modules/calendar-feeds/calendar-feed.response';
import { CHECKLIST_SHAPE } from '../modules/checklists/checklist.response';
import { COMMENT_SHAPE } from '../modules/job-requests/chat/comment.response';
import { COMPLETED_JOB_REQUEST_SHAPE, JOB_REQUEST_SHAPE, PAYMENT_STATUS_SHAPE } from '../modules/job-requests/job-request.response';
import { LEGACY_BATCH_ACCEPTED_SHAPE, LEGACY_BATCH_SHAPE, LEGACY_VALIDATION_ERROR_SHAPE } from '../modules/legacy/legacy-batch.response';
import { PROPERTY_PICTURE_SHAPE } from '../modules/properties/property-picture.response';
import { OTHER_ATTRIBUTE_SHAPE, PROPERTY_SHAPE } from '../modules/properties/property.response';
import { REMINDER_SHAPE } from '../modules/reminders/reminder.response';
import { WEBHOOK_DISABLED_SHAPE, WEBHOOK_RECOVERED_SHAPE } from '../modules/webhooks/delivery/webhook-operational-events.rules';
import {
  REPLAY_DRY_RUN_SHAPE,
  WEBHOOK_REPLAY_SHAPE,
  WEBHOOK_REPLAY_STARTED_SHAPE,
} from '../modules/webhooks/replay/webhook-replay.response';
import { LEGACY_WEBHOOK_SHAPE } from '../modules/webhooks/subscriptions/legacy-webhook.response';
import {
  RETRIED_DELIVERY_SHAPE,
  TEST_DELIVERY_SHAPE,
  WEBHOOK_DELIVERY_SHAPE,
} from '../modules/webhooks/subscriptions/webhook-delivery.response';
import {
  CREATED_WEBHOOK_SUBSCRIPTION_SHAPE,
  ROTATED_SECRET_SHAPE,
  WEBHOOK_SUBSCRIPTION_SHAPE,
} from '../modules/webhooks/subscriptions/webhook-subscription.response';
import { arrayOf, bool, int, orNull, ref, shapeOf, str, uri, type JsonSchema } from '../platform/openapi/json-schema';
import type { ReadShape } from '../platform/openapi/read-shape';

/**
 * The read shapes the document publishes under components/schemas. Each is declared next to its
 * response type (`readShape<T>()` in the module's `*.response.ts`, compile-checked against T); the
 * routes name theirs in @RouteDoc. Listed here: the shapes only webhooks carry (their results) or
 * other shapes reference, so that every one is published whatever the routes name.
 */
const SHAPES: ReadShape[] = [
  HEALTH_SHAPE,
  PROPERTY_SHAPE,
  OTHER_ATTRIBUTE_SHAPE,
  PROPERTY_PICTURE_SHAPE,
  CHECKLIST_SHAPE,
  BOOKING_SHAPE,
  REMINDER_SHAPE,
  JOB_REQUEST_SHAPE,
  COMPLETED_JOB_REQUEST_SHAPE,
  PAYMENT_STATUS_SHAPE,
  COMMENT_SHAPE,
  CALENDAR_FEED_SHAPE,
  WEBHOOK_SUBSCRIPTION_SHAPE,
  CREATED_WEBHOOK_SUBSCRIPTION_SHAPE,
  ROTATED_SECRET_SHAPE,
  TEST_DELIVERY_SHAPE,
  WEBHOOK_DELIVERY_SHAPE,
  LEGACY_BATCH_ACCEPTED_SHAPE,
  LEGACY_BATCH_SHAPE,
  LEGACY_WEBHOOK_SHAPE,
  LEGACY_VALIDATION_ERROR_SHAPE,
  WEBHOOK_DISABLED_SHAPE,
  WEBHOOK_RECOVERED_SHAPE,
  RETRIED_DELIVERY_SHAPE,
  WEBHOOK_REPLAY_SHAPE,
  REPLAY_DRY_RUN_SHAPE,
  WEBHOOK_REPLAY_STARTED_SHAPE,
];

/** The problem document every error answers with (platform/http's problem shape, RFC 9457). */
const PROBLEM: JsonSchema = {
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
      shapeOf<{ pointer: string; detail: string }>('One field that failed.', {
        pointer: { type: 'string', description: 'JSON Pointer to the field, e.g. #/taskGroups/0/tasks/1/colour' },
        detail: str,
      }),
    ),
    existingId: { type: 'string', description: 'the subscription or booking that already exists (409 conflict)' },
  },
};

/** A list response: the collection envelope of spec 1 (General conventions 6) around one read shape. */
export const pageName = (shape: ReadShape) => `${shape.name}Page`;

function pageOf(item: string): JsonSchema {
  return {
    type: 'object',
    description: `The collection envelope: pass nextCursor as the next request's cursor while hasMore is true. Items: ${item}.`,
    required: ['data', 'nextCursor', 'hasMore'],
    properties: { data: arrayOf(ref(item)), nextCursor: orNull(str), hasMore: bool },
    additionalProperties: false,
  };
}

/**
 * components/schemas for the read shapes: every shape listed above or named by a route, the
 * problem, and the page of each shape a list route returns.
 */
export function readShapeSchemas(routeShapes: Iterable<ReadShape>, pagedShapes: Iterable<ReadShape>): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const shape of [...SHAPES, ...routeShapes]) schemas[shape.name] = shape.schema;
  schemas.Problem = PROBLEM;
  for (const shape of pagedShapes) schemas[pageName(shape)] = pageOf(shape.name);
  return schemas;
}
