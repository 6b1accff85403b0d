import { IsOptionalText } from '../../../platform/http/validators';
import { WindowListQueryDto } from '../../../platform/pagination/list-query.dto';

/** GET /v1/reminders?dateFrom=&dateTo=[&propertyId=][&cursor=][&limit=]: reminders whose date is in [dateFrom, dateTo). */
export class ListRemindersQueryDto extends WindowListQueryDto {
  @IsOptionalText(100)
  propertyId?: string;
}
