import { IsOptional, IsString, Length } from 'class-validator';
import { LimitQueryDto } from '../../../platform/pagination/list-query.dto';

export class ListEventsQueryDto extends LimitQueryDto {
  /** The id of the last event already seen (the previous page's nextCursor). */
  @IsOptional()
  @IsString()
  @Length(1, 100)
  after?: string;
}
