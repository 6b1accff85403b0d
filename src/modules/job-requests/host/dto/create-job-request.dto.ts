import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IsOptionalText } from '../../../../platform/http/validators';
import { JOB_LIMITS as L } from '../../job-changes.rules';
import {
  ChecklistRefDto,
  IsChecklistList,
  IsServiceProviderList,
  JobPropertyDto,
  JobScalarsDto,
  ServiceProviderDto,
} from './job-parts.dto';
import { JobTimeDto } from '../../../reminders/dto/job-time.dto';

/** POST /v1/jobRequests (spec 2.6). */
export class CreateJobRequestDto extends JobScalarsDto {
  @IsDefined()
  @IsServiceProviderList()
  serviceProviders!: ServiceProviderDto[];

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => JobTimeDto)
  time!: JobTimeDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => JobPropertyDto)
  property!: JobPropertyDto;

  @IsOptional()
  @IsChecklistList()
  checklists?: ChecklistRefDto[] | null;

  @IsOptionalText(L.sourceBookingId)
  sourceBookingId?: string | null;
}
