import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
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
  IsDateTime,
  IsHttpUrlList,
  IsListOf,
  IsRequiredText,
  IsStringOrStringArray,
  OptionalNotNull,
} from '../../../../platform/http/validators';
import { JOB_LIMITS as L } from '../../job-changes.rules';
import { JOB_TIME_TYPES, JobTimeType } from '../../job-snapshot.rules';

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

/** durationInHours / durationInMinutes: 1-999; 0 is refused (spec: omit rather than send 0); null clears on PATCH. */
function IsDuration(): PropertyDecorator {
  return allOf(IsOptional(), IsInt(), Min(1), Max(999));
}

/** The job time object on create (spec 2.5): type and startTime required; null durations or endTime mean none. */
export class JobTimeDto {
  @IsDefined()
  @IsIn(JOB_TIME_TYPES)
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
  @IsHttpUrlList(20, L.url)
  pictures?: string[];
}

/**
 * The property details a job may write (spec 2.6 job property). They update the property's own
 * details in the job's transaction, merged key by key as PATCH /v1/properties does (null removes a key).
 */
export class JobPropertyDetailsDto {
  @IsOptional() @IsString() @MaxLength(L.detailText) information?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) access?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) garbage?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) parking?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiName?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiPassword?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiDescription?: string | null;

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
