import { STATUS_CODES } from 'node:http';
import { ErrorKind } from '../errors/domain-error';

/** RFC 9457 problem document as the spec shapes it (section 7). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  requestId: string;
  [extra: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  method_not_allowed: 405,
  gone: 410,
  invalid_state: 409,
  unprocessable: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
};

/** Titles for the codes whose wording we fix; others fall back to the status text. */
const TITLES: Record<string, string> = {
  conflict: 'Conflict',
  objectStrict: 'Unknown fields',
  validationFailed: 'Validation failed',
  invalidCursor: 'Invalid cursor',
  subscription_inactive: 'Subscription inactive',
  rate_limited: 'Too many requests',
  idempotencyKeyReused: 'Idempotency key reused',
  idempotencyKeyInProgress: 'Idempotency key in progress',
  malformedJson: 'Malformed JSON',
  internal: 'Internal server error',
  legacyKeyRequired: 'Legacy API key required',
  legacyApiRetired: 'Legacy API retired',
  serviceUnavailable: 'Service unavailable',
  methodNotAllowed: 'Method not allowed',
};

export interface ProblemInput {
  status: number;
  code: string;
  detail: string;
  instance: string;
  requestId: string;
  extras?: Record<string, unknown>;
}

export function buildProblem(errorsBaseUrl: string, input: ProblemInput): Problem {
  return {
    type: `${errorsBaseUrl}/${input.code}`,
    title: TITLES[input.code] ?? STATUS_CODES[input.status] ?? 'Error',
    status: input.status,
    detail: input.detail,
    instance: input.instance,
    code: input.code,
    requestId: input.requestId,
    ...withoutReserved(input.extras),
  };
}

const RESERVED = new Set(['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId']);

function withoutReserved(extras: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extras).filter(([name]) => !RESERVED.has(name)));
}
