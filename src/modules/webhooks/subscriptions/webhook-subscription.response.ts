import { WebhookSubscriptionEntity } from '../webhook-subscription.entity';

/** A subscription as every route shows it (spec 2.7): never a secret; disabledReason only while disabled with one. */
export interface WebhookSubscriptionResponse {
  id: string;
  url: string;
  eventFilters: string[];
  enabled: boolean;
  maxRetries: number;
  createdAt: string;
  disabledReason?: string;
}

/** POST /v1/webhooks answers with the secret, once. */
export interface CreatedWebhookSubscriptionResponse extends WebhookSubscriptionResponse {
  signingSecret: string;
}

export interface RotatedSecretResponse {
  id: string;
  signingSecret: string;
  previousSecretExpiresAt: string;
}

export function toWebhookSubscriptionResponse(row: WebhookSubscriptionEntity): WebhookSubscriptionResponse {
  const shape: WebhookSubscriptionResponse = {
    id: row.id,
    url: row.url,
    eventFilters: row.eventFilters,
    enabled: row.enabled,
    maxRetries: row.maxRetries,
    createdAt: row.createdAt.toISOString(),
  };
  if (!row.enabled && row.disabledReason) shape.disabledReason = row.disabledReason;
  return shape;
}
