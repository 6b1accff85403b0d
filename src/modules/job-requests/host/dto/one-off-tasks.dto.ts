import { IsDefined, IsOptional } from 'class-validator';
import { IsHttpUrl, IsListOf, IsRequiredText } from '../../../../platform/http/validators';
import { JOB_LIMITS as L } from '../../job-changes.rules';

/** A one-off task (spec 2.6): matched to the job's existing ones by exact title (docs/job-requests.md). */
export class OneOffTaskDto {
  @IsRequiredText(L.oneOffTitle)
  title!: string;

  @IsRequiredText(L.oneOffNote)
  note!: string;

  @IsOptional()
  @IsHttpUrl()
  sourcePictureUrl?: string | null;
}

/** POST /v1/jobRequests/{jobRequestId}/oneOffTasks. */
export class OneOffTasksDto {
  @IsDefined()
  @IsListOf(() => OneOffTaskDto, L.oneOffTasksPerJob, 1)
  tasks!: OneOffTaskDto[];
}
