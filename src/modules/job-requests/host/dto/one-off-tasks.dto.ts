import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { JOB_LIMITS as L } from '../../job-changes.rules';

/** A one-off task (spec 2.6): matched to the job's existing ones by exact title (docs/job-requests.md). */
export class OneOffTaskDto {
  @IsDefined()
  @IsString()
  @Length(1, L.oneOffTitle)
  title!: string;

  @IsDefined()
  @IsString()
  @Length(1, L.oneOffNote)
  note!: string;

  @IsOptional()
  @IsString()
  @MaxLength(L.url)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: '$property must be an http or https URL' },
  )
  sourcePictureUrl?: string | null;
}

/** POST /v1/jobRequests/{jobRequestId}/oneOffTasks. */
export class OneOffTasksDto {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(L.oneOffTasksPerJob)
  @ValidateNested({ each: true })
  @Type(() => OneOffTaskDto)
  tasks!: OneOffTaskDto[];
}
