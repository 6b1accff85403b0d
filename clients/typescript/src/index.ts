export { createPlatformClient, errorOf, must, PlatformApiError } from './client';
export type { ItemOf, ListPath, PageParams, PlatformClient, PlatformClientOptions } from './client';
export { parseRetryAfter, RETRIED_STATUSES, retryDelayMs, retryingFetch } from './retry';
export type { Fetch, RetryOptions } from './retry';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError } from './webhooks';
export type { VerifyOptions, WebhookHeaders } from './webhooks';
export { isEvent } from './types';
export type {
  components,
  EventName,
  EventResults,
  FeedEvent,
  paths,
  Problem,
  Schema,
  WebhookPayload,
  WebhookPayloadOf,
  webhooks,
} from './types';
