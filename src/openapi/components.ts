import { PROBLEM_EXAMPLE, SHAPE_EXAMPLES } from './examples';
import type { JsonSchema } from './dto-schemas';

/** Response headers, problem responses and webhook payloads: the parts of the document no decorator can state. */

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

export const HEADERS: Record<string, JsonSchema> = {
  RequestId: header(
    "The request id: the client's x-request-id when well formed (1-200 of A-Za-z0-9-_.:+/=), else generated. In every log line and problem.",
  ),
  RateLimitLimit: header('Requests allowed per second for the key (sustained rate).', { type: 'integer' }),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer' }),
  RateLimitReset: header('Seconds until the current window ends.', { type: 'integer' }),
  RateLimitPolicy: header('IETF draft: the windows, e.g. "burst";q=50;w=1, "daily";q=30000;w=86400.'),
  RateLimit: header('IETF draft: the remaining quota and reset of each window.'),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer' }),
  Allow: header('The methods the resource serves (RFC 9110).'),
  Deprecation: header('The legacy API is deprecated since this instant (RFC 9745): @1791504000 (2026-10-09).'),
  Sunset: header('When the legacy API shuts down (RFC 8594), e.g. Wed, 07 Apr 2027 00:00:00 GMT; from then on it answers 410.'),
  Link: header('The migration guide: <…/docs/legacy>; rel="deprecation".'),
  IdempotentReplayed: header('true when this response is the stored answer to an earlier request with the same Idempotency-Key.', {
    const: 'true',
  }),
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers of every authenticated answer (success or problem) past the key check. */
export const LIMIT_HEADERS = {
  'x-request-id': headerRef('RequestId'),
  'X-RateLimit-Limit': headerRef('RateLimitLimit'),
  'X-RateLimit-Remaining': headerRef('RateLimitRemaining'),
  'X-RateLimit-Reset': headerRef('RateLimitReset'),
  'RateLimit-Policy': headerRef('RateLimitPolicy'),
  RateLimit: headerRef('RateLimit'),
};
export const ID_HEADER = { 'x-request-id': headerRef('RequestId') };
/** On every legacy answer, problems included. */
export const DEPRECATION_HEADERS = { Deprecation: headerRef('Deprecation'), Sunset: headerRef('Sunset'), Link: headerRef('Link') };
export const REPLAYED_HEADER = { 'Idempotent-Replayed': headerRef('IdempotentReplayed') };

const problem = (description: string, example: object, headers: object = LIMIT_HEADERS) => ({
  description,
  headers,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example } },
});

/** The problem responses by status; the description names the codes each can carry. */
export const PROBLEM_RESPONSES: Record<number, { name: string; response: object }> = {
  400: {
    name: 'BadRequest',
    response: problem(
      'Invalid request. Codes: objectStrict (unknown body or query fields, each named in errors), validationFailed, invalidCursor, invalidCharacters (U+0000 or a lone surrogate), malformedJson, invalidWebhookUrl, pictureDownloadFailed, badRequest.',
      PROBLEM_EXAMPLE(400, 'objectStrict', 'Unknown field: colour', {
        errors: [{ pointer: '#/colour', detail: 'colour is not a known field' }],
      }),
    ),
  },
  401: {
    name: 'Unauthorized',
    response: problem(
      'Missing or invalid x-api-key (code unauthorized). No rate-limit headers.',
      PROBLEM_EXAMPLE(401, 'unauthorized', 'Missing or invalid x-api-key'),
      ID_HEADER,
    ),
  },
  403: {
    name: 'Forbidden',
    response: problem(
      "The key's account has no active subscription or its plan lacks the API (code subscription_inactive); on the legacy routes, a Platform key (code legacyKeyRequired).",
      PROBLEM_EXAMPLE(403, 'subscription_inactive', 'The subscription of this account is not active'),
      ID_HEADER,
    ),
  },
  404: {
    name: 'NotFound',
    response: problem(
      'Unknown id, or owned by another account (code notFound).',
      PROBLEM_EXAMPLE(404, 'notFound', 'Booking bk_01JDZK6B2C3D4E5F6G7H8J9K0M was not found'),
    ),
  },
  409: {
    name: 'Conflict',
    response: problem(
      'Collides with the current state. Codes: conflict (duplicate sourceBookingId or webhook URL: existingId or bookingId names the existing one), invalidState (the resource is in a state that refuses the change), idempotencyKeyInProgress (the first request with this Idempotency-Key is still running; retry with the same key after Retry-After).',
      PROBLEM_EXAMPLE(409, 'conflict', 'A booking with sourceBookingId airbnb-HM4K2Q already exists; update it instead', {
        existingId: 'bk_01JDZK6B2C3D4E5F6G7H8J9K0M',
      }),
      { ...LIMIT_HEADERS, 'Retry-After': headerRef('RetryAfter') },
    ),
  },
  405: {
    name: 'MethodNotAllowed',
    response: problem(
      'The resource does not serve this method (code methodNotAllowed); Allow names those it serves.',
      PROBLEM_EXAMPLE(405, 'methodNotAllowed', 'GET /v1/mcp is not served: the MCP endpoint is stateless; POST each message'),
      { ...ID_HEADER, Allow: headerRef('Allow') },
    ),
  },
  410: {
    name: 'Gone',
    response: problem(
      'The legacy API is shut down (code legacyApiRetired), from LEGACY_SUNSET_AT on; with Deprecation, Sunset and Link. Use the /v1 routes.',
      PROBLEM_EXAMPLE(410, 'legacyApiRetired', 'The legacy API was shut down on 2027-04-07T00:00:00.000Z'),
      { ...ID_HEADER, ...DEPRECATION_HEADERS },
    ),
  },
  413: {
    name: 'PayloadTooLarge',
    response: problem(
      'The body (1 MB for JSON) or the uploaded image is too large (code payloadTooLarge).',
      PROBLEM_EXAMPLE(413, 'payloadTooLarge', 'The request body exceeds 1048576 bytes'),
    ),
  },
  415: {
    name: 'UnsupportedMediaType',
    response: problem(
      'The body is not application/json (code unsupportedMediaType).',
      PROBLEM_EXAMPLE(415, 'unsupportedMediaType', 'Send application/json'),
    ),
  },
  422: {
    name: 'IdempotencyKeyReused',
    response: problem(
      'The Idempotency-Key was used with another body or path (code idempotencyKeyReused).',
      PROBLEM_EXAMPLE(422, 'idempotencyKeyReused', 'This Idempotency-Key was used for another request'),
    ),
  },
  429: {
    name: 'TooManyRequests',
    response: problem(
      'A rate limit of the key (or, for failed authentications, of the client address) is exhausted (code rate_limited).',
      PROBLEM_EXAMPLE(429, 'rate_limited', 'Rate limit exceeded'),
      {
        ...LIMIT_HEADERS,
        'Retry-After': headerRef('RetryAfter'),
      },
    ),
  },
  503: {
    name: 'Unavailable',
    response: {
      description: 'PostgreSQL or Redis does not answer (the health body with status unavailable).',
      headers: ID_HEADER,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Health' },
          example: { ...(SHAPE_EXAMPLES.Health as object), status: 'unavailable', checks: { database: 'up', redis: 'down' } },
        },
      },
    },
  },
};

/** The request headers every route may take. */
export const PARAMETERS: Record<string, JsonSchema> = {
  RequestId: {
    name: 'x-request-id',
    in: 'header',
    required: false,
    description: 'Your own request id, echoed back and logged (1-200 of A-Za-z0-9-_.:+/=); one is generated otherwise.',
    schema: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9\\-_.:+/=]{1,200}$' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the create safe to retry: the same key and body within 24 hours replays the stored response (Idempotent-Replayed: true) and creates nothing; another body or path is a 422, a retry while the first is running a 409. Keys are per account; the key is also the event clientRequestId.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    example: 'create-villa-azur-2030-06-20',
  },
};
