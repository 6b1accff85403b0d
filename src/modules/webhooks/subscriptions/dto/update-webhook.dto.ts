import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { OptionalNotNull } from '../../../../platform/http/validators';
import { SUBSCRIPTION_LIMITS as L } from '../webhook-subscription.rules';
import { EventFilterList, RateLimitPerSecond } from './create-webhook.dto';

/**
 * PATCH /v1/webhooks/{webhookId}: the fields spec 4.8 lists (url, eventFilters, enabled). maxRetries is
 * fixed at creation like the spec says, so sending it is an unknown field (objectStrict). null is refused:
 * none of these fields can be cleared.
 */
export class UpdateWebhookDto {
  @OptionalNotNull()
  @IsString()
  @MaxLength(L.urlMax)
  url?: string;

  @OptionalNotNull()
  @EventFilterList()
  eventFilters?: string[];

  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  /** An extension: null switches pacing off. */
  @RateLimitPerSecond()
  rateLimitPerSecond?: number | null;
}
