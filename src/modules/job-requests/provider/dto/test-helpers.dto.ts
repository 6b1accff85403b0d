import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOptionalText, IsRequiredText } from '../../../../platform/http/validators';
import { JOB_LIMITS as L } from '../../job-changes.rules';
import { PROBLEM_STATUSES, ProblemStatus } from '../../job-snapshot.rules';
import { IsProviderEmail, ServiceProviderDto } from '../../host/dto/job-parts.dto';

/** Bodies of the job request test helpers (docs/job-requests.md, Test helpers). */

/** …/accept: the provider's email; name is what cleanerName shows (default: the email's local part). */
export class AcceptDto extends ServiceProviderDto {
  @IsOptionalText(L.providerName)
  name?: string | null;
}

/** A reported position; both coordinates or neither. */
export class PositionDto {
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-90)
  @Max(90)
  latitude?: number | null;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180)
  @Max(180)
  longitude?: number | null;
}

export class ProblemDto {
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(5)
  severity!: number;

  @IsDefined()
  @IsIn(PROBLEM_STATUSES)
  status!: ProblemStatus;

  @IsRequiredText(200)
  step!: string;

  @IsRequiredText(200)
  checklist!: string;

  /** Stored, never returned (spec 2.6). */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;
}

export class CompleteDto extends PositionDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2000)
  @IsString({ each: true })
  completedTaskIds?: string[] | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  verificationPictureCount?: number | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ProblemDto)
  problems?: ProblemDto[] | null;
}

/** …/comments: a provider's chat message. */
export class ProviderCommentDto {
  @IsRequiredText(5000)
  message!: string;

  @IsProviderEmail()
  authorEmail!: string;
}
