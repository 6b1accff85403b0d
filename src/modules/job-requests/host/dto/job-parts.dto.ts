import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  allOf,
  IsHttpUrlList,
  IsListOf,
  IsRequiredText,
  IsStringOrStringArray,
  OptionalNotNull,
} from '../../../../platform/http/validators';
import { JOB_LIMITS as L } from '../../job-changes.rules';
import type { JobTimeType } from '../../../reminders/reminder.rules';
import { PropertyDetailTextsDto } from '../../../properties/dto/property-parts.dto';
import { JobTimeDto } from '../../../reminders/dto/job-time.dto';

/** The parts of the job request write shape (spec 2.6, 4.7) shared by create and PATCH. */

/** A service provider's email (required): at most 254 characters. */
export function IsProviderEmail(): PropertyDecorator {
  return allOf(IsDefined(), IsString(), MaxLength(L.email), IsEmail({}, { message: '$property must be an email address' }));
}

export class ServiceProviderDto {
  @IsProviderEmail()
  email!: string;
}

/** serviceProviders: 1-50 items {email}; used by create (required) and PATCH (optional). */
export function IsServiceProviderList(): PropertyDecorator {
  return allOf(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(L.serviceProviders),
    ValidateNested({ each: true }),
    Type(() => ServiceProviderDto),
  );
}

/** The job time object on PATCH: every field optional; endTime and the durations take null to clear them. */
export class JobTimeChangesDto extends JobTimeDto {
  @OptionalNotNull() declare type: JobTimeType;
  @OptionalNotNull() declare startTime: string;
}

/** A job's otherAttributes item: tighter than the property's (spec 8: label 60, value 100). */
export class JobOtherAttributeDto {
  @IsRequiredText(60)
  label!: string;

  @IsDefined()
  @IsStringOrStringArray({ maxLength: 100, maxItems: 50 })
  value!: string | string[];

  @IsOptional()
  @IsString()
  @MaxLength(100)
  group?: string;

  @IsOptional()
  @IsHttpUrlList(20)
  pictures?: string[];
}

/**
 * The property details a job may write (spec 2.6 job property). They update the property's own
 * details in the job's transaction, merged key by key as PATCH /v1/properties does (null removes a key).
 */
export class JobPropertyDetailsDto extends PropertyDetailTextsDto {
  @IsOptional()
  @IsListOf(() => JobOtherAttributeDto, L.otherAttributes)
  otherAttributes?: JobOtherAttributeDto[] | null;
}

/** The job property on create: its identifier (exactly one, each at least 3 characters) and details. */
export class JobPropertyDto extends JobPropertyDetailsDto {
  @IsOptional()
  @IsString()
  @Length(3, 100)
  propertyId?: string;

  @IsOptional()
  @IsString()
  @Length(3, 100)
  sourcePropertyId?: string;
}

export class ChecklistRefDto {
  @IsRequiredText(100)
  checklistId!: string;
}

/** checklists: up to 20 items {checklistId}. */
export function IsChecklistList(): PropertyDecorator {
  return allOf(
    IsArray(),
    ArrayMaxSize(L.checklists),
    ValidateNested({ each: true }),
    Type(() => ChecklistRefDto),
  );
}

/** The optional scalar fields of create and PATCH; null means "not set" (on PATCH: clear it). */
export class JobScalarsDto {
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(L.maxPrice)
  offeredPrice?: number | null;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: '$property must be an ISO 4217 currency code in upper case (e.g. EUR)' })
  offeredPriceCurrency?: string | null;

  @IsOptional()
  @IsString()
  @Length(3, 1500)
  message?: string | null;

  @IsOptional()
  @IsBoolean()
  receiveUpdates?: boolean | null;
}
