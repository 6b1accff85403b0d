import { IsDefined, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ToInt } from '../http/query-transforms';
import { IsDateTime } from '../http/validators';
import { DEFAULT_LIMIT, MAX_LIMIT } from './page';

/** `?limit=` 1-100, default 50. Extend this for lists with more filters. */
export class LimitQueryDto {
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(MAX_LIMIT)
  limit: number = DEFAULT_LIMIT;
}

/** `?cursor=&limit=` for keyset-paginated lists. */
export class ListQueryDto extends LimitQueryDto {
  @IsOptional()
  @IsString()
  @Length(1, 512)
  cursor?: string;
}

/**
 * `?dateFrom=&dateTo=&cursor=&limit=` for lists over a date window (bookings, reminders, job requests):
 * both bounds required date-times; dateWindowOf (date-window.ts) turns them into the window.
 */
export class WindowListQueryDto extends ListQueryDto {
  @IsDefined()
  @IsDateTime()
  dateFrom!: string;

  @IsDefined()
  @IsDateTime()
  dateTo!: string;
}
