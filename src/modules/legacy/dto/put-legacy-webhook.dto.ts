import { IsString, MaxLength } from 'class-validator';
import { URL_MAX_LENGTH } from '../../../platform/net/url-policy.rules';

/** PUT /legacy/webhook: the account's one legacy webhook URL (the URL rules of Platform subscriptions apply). */
export class PutLegacyWebhookDto {
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  url: string;
}
