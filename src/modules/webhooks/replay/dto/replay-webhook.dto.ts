import { IsBoolean } from 'class-validator';
import { IsDateTime, OptionalNotNull } from '../../../../platform/http/validators';
import { EventFilterList } from '../../subscriptions/dto/create-webhook.dto';

/** POST /v1/webhooks/{webhookId}/replay (issue 13, an extension of the spec). */
export class ReplayWebhookDto {
  /** Events created at or after this instant (ISO 8601 with a zone). */
  @IsDateTime()
  since: string;

  /** Events created before this instant; default (and at most) now. */
  @OptionalNotNull()
  @IsDateTime()
  until?: string;

  /** Which events of the window; default the subscription's own filters. */
  @OptionalNotNull()
  @EventFilterList()
  eventFilters?: string[];

  /** Only events whose delivery to this subscription ended failed_permanent or never happened. */
  @OptionalNotNull()
  @IsBoolean()
  onlyFailed?: boolean;

  /** Answer how many deliveries the replay would emit, and emit nothing. */
  @OptionalNotNull()
  @IsBoolean()
  dryRun?: boolean;
}
