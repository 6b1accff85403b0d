import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInt } from '../../../../platform/http/query-transforms';
import { IsDateTime } from '../../../../platform/http/validators';
import { LimitQueryDto } from '../../../../platform/pagination/list-query.dto';

/** GET /v1/jobRequests/{jobRequestId}/comments: updatedAfter, offset (0 or more), limit (1-100, default 50). */
export class ListCommentsQueryDto extends LimitQueryDto {
  @IsOptional()
  @IsDateTime()
  updatedAfter?: string;

  @IsOptional()
  @ToInt()
  @IsInt({ message: 'offset must be an integer' })
  @Min(0)
  @Max(1_000_000)
  offset: number = 0;
}
