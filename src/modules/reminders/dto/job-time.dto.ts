import { IsDefined, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { allOf, IsDateTime } from '../../../platform/http/validators';
import { JOB_TIME_TYPES, JobTimeType, REMINDER_LIMITS as L } from '../reminder.rules';

/** durationInHours / durationInMinutes: 1-999; 0 is refused (spec: omit rather than send 0); null means none (on PATCH: clears it). */
function IsDuration(): PropertyDecorator {
  return allOf(
    Max(L.duration.max, { message: '$property must be 1-999' }),
    Min(L.duration.min, { message: '$property must be 1-999 (leave it out rather than send 0)' }),
    IsInt(),
    IsOptional(),
  );
}

/**
 * The job time object (spec 2.5), one class for reminders' job settings and job requests (whose PATCH
 * form, JobTimeChangesDto, extends it): type and startTime required; durations 1-999 (0 is refused:
 * omit them instead); null durations or endTime mean none. endTime after startTime is checked by the
 * rules (storedJobTime, assertTimeOrder).
 */
export class JobTimeDto {
  @IsDefined()
  @IsIn(JOB_TIME_TYPES, { message: '$property must be fixed or flexible' })
  type!: JobTimeType;

  @IsDefined()
  @IsDateTime()
  startTime!: string;

  @IsOptional()
  @IsDateTime()
  endTime?: string | null;

  @IsDuration() durationInHours?: number | null;
  @IsDuration() durationInMinutes?: number | null;
}
