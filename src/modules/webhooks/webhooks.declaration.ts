import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at } from '../../platform/openapi/examples';
import { EVENTS_EXAMPLE_IDS } from '../events/events.declaration';
import {
  WEBHOOK_CLIENT_CERTIFICATE_EXPIRED_SHAPE,
  WEBHOOK_DISABLED_SHAPE,
  WEBHOOK_RECOVERED_SHAPE,
} from './delivery/webhook-operational-events.rules';
import { REPLAY_DRY_RUN_SHAPE, WEBHOOK_REPLAY_SHAPE, WEBHOOK_REPLAY_STARTED_SHAPE } from './replay/webhook-replay.response';
import { LEGACY_WEBHOOK_SHAPE } from './subscriptions/legacy-webhook.response';
import { RETRIED_DELIVERY_SHAPE, TEST_DELIVERY_SHAPE, WEBHOOK_DELIVERY_SHAPE } from './subscriptions/webhook-delivery.response';
import {
  CREATED_WEBHOOK_SUBSCRIPTION_SHAPE,
  ROTATED_SECRET_SHAPE,
  WEBHOOK_SUBSCRIPTION_SHAPE,
} from './subscriptions/webhook-subscription.response';
import { WEBHOOK_EXAMPLE_IDS, WEBHOOK_EXAMPLES } from './webhooks.examples';
import { WEBHOOK_IDS } from './webhooks.ids';

const exampleIds = WEBHOOK_EXAMPLE_IDS;

const SUBSCRIPTION = {
  id: exampleIds.webhookId,
  url: WEBHOOK_EXAMPLES.webhookUrl,
  eventFilters: ['property.*', 'jobRequest.*'],
  enabled: true,
  maxRetries: 5,
  rateLimitPerSecond: null,
  ordered: false,
  createdAt: at,
};

const REPLAY = {
  id: exampleIds.replayId,
  webhookId: exampleIds.webhookId,
  status: 'running',
  since: '2030-06-19T00:00:00.000Z',
  until: at,
  eventFilters: ['property.*', 'jobRequest.*'],
  onlyFailed: true,
  total: 1200,
  done: 350,
  failed: 2,
  delivered: 340,
  skipped: 14,
  createdAt: at,
  finishedAt: null,
};

export const WEBHOOKS = declareModule({
  ids: WEBHOOK_IDS,
  tenantTables: [
    { table: 'webhook_subscriptions' },
    { table: 'webhook_deliveries' },
    { table: 'webhook_delivery_keys', key: ['account_id', 'event_id', 'subscription_id'] },
    { table: 'webhook_replays' },
  ],
  exampleIds,
  shapes: [
    WEBHOOK_SUBSCRIPTION_SHAPE,
    CREATED_WEBHOOK_SUBSCRIPTION_SHAPE,
    ROTATED_SECRET_SHAPE,
    TEST_DELIVERY_SHAPE,
    WEBHOOK_DELIVERY_SHAPE,
    LEGACY_WEBHOOK_SHAPE,
    WEBHOOK_DISABLED_SHAPE,
    WEBHOOK_RECOVERED_SHAPE,
    WEBHOOK_CLIENT_CERTIFICATE_EXPIRED_SHAPE,
    RETRIED_DELIVERY_SHAPE,
    WEBHOOK_REPLAY_SHAPE,
    REPLAY_DRY_RUN_SHAPE,
    WEBHOOK_REPLAY_STARTED_SHAPE,
  ],
  examples: {
    WebhookSubscription: SUBSCRIPTION,
    CreatedWebhookSubscription: { ...SUBSCRIPTION, signingSecret: 'Zk9yTWF0VGhlU2lnbmluZ1NlY3JldE9mVGhpc0hvb2s' },
    RotatedSecret: {
      id: exampleIds.webhookId,
      signingSecret: 'TmV3U2VjcmV0Rm9yVGhlU2FtZVN1YnNjcmlwdGlvbjE',
      previousSecretExpiresAt: '2030-06-21T09:30:00.000Z',
      ordered: false,
    },
    TestDelivery: { deliveryId: exampleIds.deliveryId, status: 'pending' },
    WebhookDelivery: {
      id: exampleIds.deliveryId,
      eventId: EVENTS_EXAMPLE_IDS.eventId,
      eventName: 'property.create',
      status: 'delivered',
      test: false,
      attemptCount: 1,
      firstAttemptAt: at,
      lastAttemptAt: at,
      nextRetryAt: null,
      createdAt: at,
      attempts: [
        {
          at,
          responseCode: 204,
          responseSnippet: '',
          errorMessage: null,
          durationMs: 41,
          errorClass: null,
          resolvedIp: '203.0.113.7',
          timings: { dnsMs: 1.2, connectMs: 9.8, tlsMs: 14.1, firstByteMs: 38.5, totalMs: 40.6 },
          retryAfterMs: null,
        },
      ],
    },
    LegacyWebhook: { url: 'https://hooks.example.com/property-ops-legacy', enabled: true, maxRetries: 5, createdAt: at, updatedAt: at },
    WebhookDisabled: {
      subscriptionId: exampleIds.webhookId,
      url: 'https://hooks.example.com/pop',
      reason: 'gone',
      disabledAt: at,
      lastFailures: [
        {
          deliveryId: exampleIds.deliveryId,
          eventId: EVENTS_EXAMPLE_IDS.eventId,
          eventName: 'property.create',
          at,
          responseCode: 410,
          errorClass: null,
          errorMessage: 'non-2xx response (HTTP 410): the receiver is gone, subscription disabled',
        },
      ],
    },
    WebhookRecovered: {
      subscriptionId: exampleIds.webhookId,
      url: 'https://hooks.example.com/pop',
      darkSince: '2030-06-20T08:00:00.000Z',
      recoveredAt: at,
      deliveryId: exampleIds.deliveryId,
    },
    WebhookClientCertificateExpired: {
      subscriptionId: exampleIds.webhookId,
      url: 'https://hooks.example.com/pop',
      certificateSubject: 'CN=pop-client, O=Example Rentals',
      certificateExpiresAt: '2030-06-20T08:00:00.000Z',
      deliveryId: exampleIds.deliveryId,
    },
    RetriedDelivery: { deliveryId: exampleIds.deliveryId, status: 'pending', attempt: 3 },
    WebhookReplay: REPLAY,
    ReplayDryRun: { dryRun: true, total: 1200 },
    WebhookReplayStarted: REPLAY,
  },
  events: {
    'webhook.disabled': {
      payload: WEBHOOK_DISABLED_SHAPE,
      when: 'the engine disabled a subscription: 10 consecutive permanently failed deliveries, or a 410 Gone',
      results:
        '`{subscriptionId, url, reason, disabledAt, lastFailures: [{deliveryId, eventId, eventName, at, responseCode, errorClass, errorMessage}]}` (up to 5, newest first)',
    },
    'webhook.recovered': {
      payload: WEBHOOK_RECOVERED_SHAPE,
      when: 'the first delivered (non-test) delivery of a subscription the engine had disabled, once re-enabled',
      results: '`{subscriptionId, url, darkSince, recoveredAt, deliveryId}`',
    },
    'webhook.clientCertificateExpired': {
      payload: WEBHOOK_CLIENT_CERTIFICATE_EXPIRED_SHAPE,
      when: "an attempt found the subscription's mTLS client certificate expired (once per certificate; its attempts fail without a retry)",
      results: '`{subscriptionId, url, certificateSubject, certificateExpiresAt, deliveryId}`',
    },
  },
  tags: {
    Webhooks: 'Signed webhook subscriptions, test deliveries and the delivery log.',
    WebhookReplays: 'Replays of a window of the event log to a subscription, and their progress (extension).',
  },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    webhooks: typeof WEBHOOKS;
  }
}
