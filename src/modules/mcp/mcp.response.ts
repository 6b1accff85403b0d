import { arrayOf, ref } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import type { ChecklistResponse } from '../checklists/checklist.response';
import { CHECKLIST_SHAPE } from '../checklists/checklist.response';
import type { PropertyResponse } from '../properties/property.response';
import { PROPERTY_SHAPE } from '../properties/property.response';
import type { WebhookDeliveryResponse } from '../webhooks/subscriptions/webhook-delivery.response';
import { WEBHOOK_DELIVERY_SHAPE } from '../webhooks/subscriptions/webhook-delivery.response';
import type { WebhookSubscriptionResponse } from '../webhooks/subscriptions/webhook-subscription.response';
import { WEBHOOK_SUBSCRIPTION_SHAPE } from '../webhooks/subscriptions/webhook-subscription.response';

/**
 * The two tool outputs that combine REST answers (each part the REST route's read shape, by reference):
 * a property with its checklists (GET /v1/properties/{id} and …/checklists), and the webhooks' health
 * (GET /v1/webhooks and each subscription's newest deliveries).
 */
export interface PropertyWithChecklistsResponse {
  property: PropertyResponse;
  checklists: ChecklistResponse[];
}

export const PROPERTY_WITH_CHECKLISTS_SHAPE = readShape<PropertyWithChecklistsResponse>(
  'PropertyWithChecklists',
  'A property and every checklist of it (enabled and disabled).',
  { property: ref(PROPERTY_SHAPE.name), checklists: arrayOf(ref(CHECKLIST_SHAPE.name)) },
);

export interface SubscriptionHealthResponse {
  subscription: WebhookSubscriptionResponse;
  recentFailures: WebhookDeliveryResponse[];
}

export interface WebhooksHealthResponse {
  subscriptions: SubscriptionHealthResponse[];
}

export const WEBHOOKS_HEALTH_SHAPE = readShape<WebhooksHealthResponse>(
  'WebhooksHealth',
  'Every subscription (enabled, or disabled with its disabledReason) and its failing deliveries among the newest ones.',
  {
    subscriptions: arrayOf({
      type: 'object',
      required: ['subscription', 'recentFailures'],
      properties: { subscription: ref(WEBHOOK_SUBSCRIPTION_SHAPE.name), recentFailures: arrayOf(ref(WEBHOOK_DELIVERY_SHAPE.name)) },
      additionalProperties: false,
    }),
  },
);
