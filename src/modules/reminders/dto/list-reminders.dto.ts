import { IsOptional, IsString, Length } from 'class-validator';
import { WindowListQueryDto } from '../../../platform/pagination/list-query.dto';

/** GET /v1/reminders?dateFrom=&dateTo=[&propertyId=][&cursor=][&limit=]: reminders whose date is in [dateFrom, dateTo). */
export class ListRemindersQueryDto extends WindowListQueryDto {
  @IsOptional()
  @IsString()
  @Length(1, 100)
  propertyId?: string;
}
