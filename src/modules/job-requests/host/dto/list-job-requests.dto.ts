import { IsIn, IsInt, IsOptional } from 'class-validator';
import { ToInt } from '../../../../platform/http/query-transforms';
import { WindowListQueryDto } from '../../../../platform/pagination/list-query.dto';
import { JOB_STATUSES, JobStatus } from '../../job-status.rules';

/** GET /v1/jobRequests: dateFrom and dateTo required (scheduledStartTime inside), status 1-5, 7, 8 or 9. */
export class ListJobRequestsQueryDto extends WindowListQueryDto {
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'status must be an integer' })
  @IsIn(JOB_STATUSES, { message: `status must be one of ${JOB_STATUSES.join(', ')}` })
  status?: JobStatus;
}
