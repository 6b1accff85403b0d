import {
  arrayOf,
  bool,
  dateTime,
  described,
  enumOf,
  FieldSchemas,
  id,
  optional,
  orNull,
  str,
  uri,
} from '../../../platform/openapi/json-schema';
import { readShape } from '../../../platform/openapi/read-shape';
import { WebhookSubscriptionEntity } from '../webhook-subscription.entity';
import { SIGNATURE_SCHEMES, SignatureScheme, signatureSchemesOf } from './webhook-subscription.rules';
import { WEBHOOK_IDS } from '../webhooks.ids';
import { AMQP_SHORT_STRING_MAX, RabbitmqOptions, rabbitmqShown } from '../rabbitmq-destination.rules';
import { OAUTH2_AUTH_METHODS, OAuth2Settings, REDACTED, receiverAuthView } from '../receiver-auth.rules';
import { MtlsView } from '../receiver-mtls.rules';

/** A subscription as every route shows it (spec 2.7): never a secret; disabledReason only while disabled with one. */
export interface WebhookSubscriptionResponse {
  id: string;
  url: string;
  eventFilters: string[];
  enabled: boolean;
  maxRetries: number;
  /** Pacing per endpoint (an extension): attempts started per second at most; null when unpaced. */
  rateLimitPerSecond: number | null;
  /** Ordered endpoint (an extension): deliveries one at a time, in the events feed's order. */
  ordered: boolean;
  /** How many deliveries wait behind the head of its order; present only while ordered (an unordered one has no order to wait in). */
  waitingDeliveries?: number;
  createdAt: string;
  /**
   * Extension, present only while v1a is on (["v1", "v1a"]): a subscription without it reads exactly as
   * the spec shows it, and its absence means ["v1"].
   */
  signatureSchemes?: SignatureScheme[];
  /** Extension: the v1a public key (`whpk_` + base64 of 32 bytes), present only while v1a is on. */
  publicKey?: string;
  /** Extension, present only while on: each attempt carries a W3C traceparent header. */
  traceContext?: true;
  /** Extension (issue 43), present only on a RabbitMQ destination (an amqp(s) url, shown without its password). */
  rabbitmq?: RabbitmqOptions;
  /** Extension (issue 42), present only while set: the custom headers' names, each value "[redacted]". */
  headers?: Record<string, string>;
  /** Extension (issue 42), present only while set: the OAuth2 settings without clientSecret. */
  oauth2?: OAuth2Settings;
  /** Extension (issue 42), present only while set: the client certificate's subject and expiry, the CA as given. */
  mtls?: MtlsView;
  disabledReason?: string;
}

/** POST /v1/webhooks answers with the secret, once. */
/** A new subscription is enabled: it has no disabledReason. */
export interface CreatedWebhookSubscriptionResponse extends Omit<WebhookSubscriptionResponse, 'disabledReason'> {
  signingSecret: string;
}

export interface RotatedSecretResponse {
  id: string;
  signingSecret: string;
  previousSecretExpiresAt: string;
  /** Ordered endpoint (an extension), as every read of the subscription shows it. */
  ordered: boolean;
  /** The new v1a public key (the previous one keeps signing until previousSecretExpiresAt); absent while v1a is off. */
  publicKey?: string;
}

export function toWebhookSubscriptionResponse(row: WebhookSubscriptionEntity): WebhookSubscriptionResponse {
  const shape: WebhookSubscriptionResponse = {
    id: row.id,
    url: row.url,
    eventFilters: row.eventFilters,
    enabled: row.enabled,
    maxRetries: row.maxRetries,
    rateLimitPerSecond: row.rateLimitPerSecond ?? null,
    ordered: row.ordered,
    createdAt: row.createdAt.toISOString(),
  };
  if (row.ordered) shape.waitingDeliveries = row.waitingDeliveries ?? 0;
  if (row.publicKey !== null) Object.assign(shape, { signatureSchemes: signatureSchemesOf(row), publicKey: row.publicKey });
  if (row.traceContext) shape.traceContext = true;
  if (row.rabbitmq) shape.rabbitmq = rabbitmqShown(row.rabbitmq);
  Object.assign(shape, receiverAuthView(row.receiverAuth));
  if (!row.enabled && row.disabledReason) shape.disabledReason = row.disabledReason;
  return shape;
}

const PUBLIC_KEY = optional(
  described(
    { type: 'string', pattern: '^whpk_[A-Za-z0-9+/]{43}=$', examples: ['whpk_11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo='] },
    'Extension: the v1a (ed25519) public key, whpk_ + base64 of its 32 raw bytes; present only while v1a is on. Not a secret.',
  ),
);

const SUBSCRIPTION_FIELDS: FieldSchemas<WebhookSubscriptionResponse> = {
  id: id(WEBHOOK_IDS.subscription),
  url: uri,
  eventFilters: arrayOf(str),
  enabled: bool,
  maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
  rateLimitPerSecond: described(
    orNull({ type: 'integer', minimum: 1, maximum: 1000 }),
    'extension: attempts started per second at most, across workers; null = unpaced',
  ),
  ordered: described(
    bool,
    'extension: deliveries go one at a time in the events feed order, each after the one before it succeeded or ended for good (docs/webhooks.md, "Ordered endpoints")',
  ),
  waitingDeliveries: optional(
    described(
      { type: 'integer', minimum: 0 },
      'extension: pending deliveries waiting behind the head of the order; present only while ordered',
    ),
  ),
  createdAt: dateTime,
  signatureSchemes: optional(
    described(
      { ...arrayOf(enumOf(SIGNATURE_SCHEMES)), minItems: 1, uniqueItems: true },
      'Extension: the schemes webhook-signature carries, present only while v1a is on (["v1", "v1a"]; absent means ["v1"]). v1a adds ed25519 signatures (Standard Webhooks) verifiable with publicKey.',
    ),
  ),
  publicKey: PUBLIC_KEY,
  traceContext: optional(
    described(
      { type: 'boolean', const: true },
      "Extension: present (true) only while on: each attempt carries a W3C traceparent header whose parent is the attempt's span, for receivers that trace too.",
    ),
  ),
  rabbitmq: optional(
    described(
      {
        type: 'object',
        required: ['exchange'],
        additionalProperties: false,
        properties: {
          exchange: { type: 'string', maxLength: AMQP_SHORT_STRING_MAX, description: 'the exchange; "" is the default exchange' },
          routingKey: { type: 'string', maxLength: AMQP_SHORT_STRING_MAX, description: "absent: each message's event name" },
        },
      },
      'Extension: present only on a RabbitMQ destination (url amqps://user@host:5671/vhost, shown without its password): each attempt is published to this exchange on a confirm channel (docs/webhooks.md, "Message broker destinations").',
    ),
  ),
  headers: optional(
    described(
      { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', const: REDACTED } },
      'Extension (issue 42): the custom headers sent with every attempt, present only while set. Values are never shown: each reads "[redacted]". Written as name → value (at most 10; names ^[A-Za-z0-9][A-Za-z0-9_-]*$ up to 64 characters, unique case-insensitively, none the platform sets; values printable ASCII up to 1,024 characters); PATCH replaces the set, null removes it.',
    ),
  ),
  oauth2: optional(
    described(
      {
        type: 'object',
        required: ['tokenUrl', 'clientId', 'authMethod'],
        properties: { tokenUrl: uri, clientId: str, scope: str, audience: str, authMethod: enumOf(OAUTH2_AUTH_METHODS) },
        additionalProperties: false,
      },
      'Extension (issue 42): OAuth2 client credentials, present only while set, never with clientSecret (write only). Each attempt carries Authorization: Bearer with a token from tokenUrl (same rules as url), fetched once and shared by every worker until shortly before it expires.',
    ),
  ),
  mtls: optional(
    described(
      {
        type: 'object',
        required: ['certificateSubject', 'certificateExpiresAt'],
        properties: { certificateSubject: str, certificateExpiresAt: dateTime, serverCaCertificate: str },
        additionalProperties: false,
      },
      'Extension (issue 42): mutual TLS, present only while set. Written as { clientCertificate, clientKey, serverCaCertificate? } (PEM); reads show the certificate subject and expiry and the CA as given, never the key or the client certificate. An attempt after the certificate expired fails without a retry (errorClass clientCertificateExpired).',
    ),
  ),
  disabledReason: optional({ type: 'string', examples: ['auto_disabled_after_repeated_delivery_failures'] }),
};
function withoutDisabledReason<T extends { disabledReason: unknown }>(fields: T): Omit<T, 'disabledReason'> {
  const { disabledReason: _left, ...rest } = fields;
  return rest;
}
const SIGNING_SECRET = { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' };
export const WEBHOOK_SUBSCRIPTION_SHAPE = readShape<WebhookSubscriptionResponse>(
  'WebhookSubscription',
  'A webhook subscription (spec 2.7); the signing secret is only in the create and rotateSecret responses.',
  SUBSCRIPTION_FIELDS,
);

export const CREATED_WEBHOOK_SUBSCRIPTION_SHAPE = readShape<CreatedWebhookSubscriptionResponse>(
  'CreatedWebhookSubscription',
  'The created subscription with its signing secret (shown once; rotateSecret issues a new one).',
  {
    ...withoutDisabledReason(SUBSCRIPTION_FIELDS),
    signingSecret: { ...SIGNING_SECRET, description: '32 bytes, base64url; used as the HMAC key as is' },
  },
);

export const ROTATED_SECRET_SHAPE = readShape<RotatedSecretResponse>(
  'RotatedSecret',
  'The new secret; the previous one keeps signing (second signature) until previousSecretExpiresAt.',
  {
    id: id(WEBHOOK_IDS.subscription),
    signingSecret: SIGNING_SECRET,
    previousSecretExpiresAt: dateTime,
    ordered: bool,
    publicKey: PUBLIC_KEY,
  },
);
