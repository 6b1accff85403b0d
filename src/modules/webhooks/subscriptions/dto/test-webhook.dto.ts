import { IsString } from 'class-validator';
import { IsEventName } from './create-webhook.dto';

/** POST /v1/webhooks/{webhookId}/test: any syntactically valid event name, known or not. */
export class TestWebhookDto {
  @IsString()
  @IsEventName()
  eventName: string;
}
