import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '../../../../platform/http/validators';
import {
  ChecklistRefDto,
  IsChecklistList,
  IsServiceProviderList,
  JobPropertyDetailsDto,
  JobScalarsDto,
  JobTimeChangesDto,
  ServiceProviderDto,
} from './job-parts.dto';

/**
 * PATCH /v1/jobRequests/{jobRequestId} (spec 4.7): every field optional. property takes details
 * only (an id is an unknown field); time takes any subset of the time fields. The scalars take null
 * to clear them; serviceProviders, checklists, property and time may be left out but not be null.
 */
export class UpdateJobRequestDto extends JobScalarsDto {
  @OptionalNotNull()
  @IsServiceProviderList()
  serviceProviders?: ServiceProviderDto[];

  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => JobTimeChangesDto)
  time?: JobTimeChangesDto;

  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => JobPropertyDetailsDto)
  property?: JobPropertyDetailsDto;

  @OptionalNotNull()
  @IsChecklistList()
  checklists?: ChecklistRefDto[];
}
