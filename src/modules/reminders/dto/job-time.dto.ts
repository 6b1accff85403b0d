import { IsDefined, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsDateTime } from '../../../platform/http/validators';
import { JOB_TIME_TYPES, REMINDER_LIMITS as L } from '../reminder.rules';

/**
 * The job time object (spec 2.5, used by reminders and job requests): type and startTime required on
 * create; durations 1-999 (0 is refused: omit them instead). endTime after startTime is checked by
 * storedJobTime (reminder.rules.ts). Job requests may import this class for their create.
 */
export class JobTimeDto {
  @IsDefined()
  @IsIn(JOB_TIME_TYPES, { message: '$property must be fixed or flexible' })
  type!: 'fixed' | 'flexible';

  @IsDefined()
  @IsDateTime()
  startTime!: string;

  @IsOptional()
  @IsDateTime()
  endTime?: string | null;

  @IsOptional()
  @IsInt()
  @Min(L.duration.min, { message: '$property must be 1-999 (leave it out rather than send 0)' })
  @Max(L.duration.max, { message: '$property must be 1-999' })
  durationInHours?: number | null;

  @IsOptional()
  @IsInt()
  @Min(L.duration.min, { message: '$property must be 1-999 (leave it out rather than send 0)' })
  @Max(L.duration.max, { message: '$property must be 1-999' })
  durationInMinutes?: number | null;
}
