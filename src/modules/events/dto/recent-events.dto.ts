import { IsOptionalText } from '../../../platform/http/validators';
import { LimitQueryDto } from '../../../platform/pagination/list-query.dto';

/** The account's events newest first (the console's events page, MCP's list_recent_events). */
export class RecentEventsQueryDto extends LimitQueryDto {
  /** The id of the oldest event already seen (the previous page's nextCursor). */
  @IsOptionalText(100)
  before?: string;

  /** Only the events of this name (`jobRequest.completed`). */
  @IsOptionalText(100)
  eventName?: string;
}
