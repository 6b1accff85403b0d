import { IsOptionalText } from '../../../platform/http/validators';
import { LimitQueryDto } from '../../../platform/pagination/list-query.dto';

export class ListEventsQueryDto extends LimitQueryDto {
  /** The id of the last event already seen (the previous page's nextCursor). */
  @IsOptionalText(100)
  after?: string;
}
