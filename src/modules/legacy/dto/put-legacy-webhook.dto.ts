import { IsString, MaxLength } from 'class-validator';
import { SUBSCRIPTION_LIMITS } from '../../webhooks/subscriptions/webhook-subscription.rules';

/** PUT /legacy/webhook: the account's one legacy webhook URL (the URL rules of Platform subscriptions apply). */
export class PutLegacyWebhookDto {
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.urlMax)
  url: string;
}
