import { bool, dateTime, int, optional, uri } from '../../../platform/openapi/json-schema';
import { readShape } from '../../../platform/openapi/read-shape';
import { WebhookSubscriptionEntity } from '../webhook-subscription.entity';

/** The account's legacy webhook (PUT/GET /legacy/webhook): its URL and whether deliveries go out. */
export interface LegacyWebhookResponse {
  url: string;
  enabled: boolean;
  maxRetries: number;
  createdAt: string;
  updatedAt: string;
  /** Only while disabled with a recorded reason (auto_disabled_after_repeated_delivery_failures): PUT the URL again to re-enable. */
  disabledReason?: string;
}

export function toLegacyWebhookResponse(row: WebhookSubscriptionEntity): LegacyWebhookResponse {
  const shape: LegacyWebhookResponse = {
    url: row.url,
    enabled: row.enabled,
    maxRetries: row.maxRetries,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  if (!row.enabled && row.disabledReason) shape.disabledReason = row.disabledReason;
  return shape;
}

export const LEGACY_WEBHOOK_SHAPE = readShape<LegacyWebhookResponse>(
  'LegacyWebhook',
  "The account's legacy webhook: every event of the account, unsigned.",
  {
    url: uri,
    enabled: bool,
    maxRetries: int,
    createdAt: dateTime,
    updatedAt: dateTime,
    disabledReason: optional({ type: 'string', examples: ['auto_disabled_after_repeated_delivery_failures'] }),
  },
);
