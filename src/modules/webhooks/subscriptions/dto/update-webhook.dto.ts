import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsNested, OptionalNotNull } from '../../../../platform/http/validators';
import { RabbitmqOptionsDto } from './rabbitmq-options.dto';
import { SignatureScheme } from '../webhook-subscription.rules';
import { EventFilterList, RateLimitPerSecond, SignatureSchemeList } from './create-webhook.dto';
import { URL_MAX_LENGTH } from '../../../../platform/net/url-policy.rules';
import { MtlsDto, MtlsSettings, OAuth2Dto, OAuth2Settings, ReceiverHeaders } from './receiver-auth.dto';

/**
 * PATCH /v1/webhooks/{webhookId}: the fields spec 4.8 lists (url, eventFilters, enabled), and
 * signatureSchemes (extension: turning v1a on makes a new key pair, off drops the keys). maxRetries is
 * fixed at creation like the spec says, so sending it is an unknown field (objectStrict). null is refused:
 * none of these fields can be cleared.
 */
export class UpdateWebhookDto {
  @OptionalNotNull()
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  url?: string;

  @OptionalNotNull()
  @EventFilterList()
  eventFilters?: string[];

  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @OptionalNotNull()
  @SignatureSchemeList()
  signatureSchemes?: SignatureScheme[];
  /** An extension: null switches pacing off. */
  @RateLimitPerSecond()
  rateLimitPerSecond?: number | null;
  /** An extension: applies to the deliveries not attempted yet (docs/webhooks.md, "Ordered endpoints"). */
  @OptionalNotNull()
  @IsBoolean()
  ordered?: boolean;

  /** An extension: send each attempt's W3C traceparent, or stop. */
  @OptionalNotNull()
  @IsBoolean()
  traceContext?: boolean;

  /** An extension (issue 43): a broker subscription's exchange and routing key; null with a move to an http(s) url. */
  @IsOptional()
  @IsNested(() => RabbitmqOptionsDto)
  rabbitmq?: RabbitmqOptionsDto | null;
  /** An extension (issue 42): replaces the whole set of custom headers; null removes them. */
  @ReceiverHeaders()
  headers?: Record<string, string> | null;
  /** An extension (issue 42): replaces the whole OAuth2 object (the secret sent again); null removes it. */
  @OAuth2Settings()
  oauth2?: OAuth2Dto | null;
  /** Extension (issue 42): a client certificate presented to the receiver, and the one CA trusted for it; null removes it (PATCH). */
  @MtlsSettings()
  mtls?: MtlsDto | null;
}
