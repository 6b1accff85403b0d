import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsCountryCode, IsTimeZone } from '../../../platform/http/validators';
import { PROPERTY_LIMITS as L } from '../property.rules';
import { BedDetailDto, LocationDto, PropertyDetailsDto } from './property-parts.dto';

/** Fields required on create may be left out of an update but never set to null. */
const sent = (_: object, value: unknown) => value !== undefined;

/**
 * PATCH /v1/properties/{propertyId}: any subset of the create fields. Each field sent
 * replaces the stored one, except details, which is merged key by key (see applyDetails).
 * null clears an optional field (type, details, tags, bedDetails, pictureUrl).
 */
export class UpdatePropertyDto {
  @ValidateIf(sent)
  @IsDefined()
  @IsString()
  @Length(L.sourceId.min, L.sourceId.max)
  sourceId?: string;

  @ValidateIf(sent)
  @IsDefined()
  @IsString()
  @Length(L.name.min, L.name.max)
  name?: string;

  @ValidateIf(sent)
  @IsDefined()
  @IsCountryCode()
  countryCode?: string;

  @ValidateIf(sent)
  @IsDefined()
  @IsTimeZone()
  timeZone?: string;

  /** Both coordinates are required when location is sent (spec 2.1). */
  @ValidateIf(sent)
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => LocationDto)
  location?: LocationDto;

  @ValidateIf(sent)
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  beds?: number;

  @ValidateIf(sent)
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  bedrooms?: number;

  @ValidateIf(sent)
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  bathrooms?: number;

  @IsOptional()
  @IsString()
  @MaxLength(L.type)
  type?: string | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PropertyDetailsDto)
  details?: PropertyDetailsDto | null;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(L.tags.min)
  @ArrayMaxSize(L.tags.max)
  @IsString({ each: true })
  @Length(L.tag.min, L.tag.max, { each: true })
  tags?: string[] | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.bedDetails)
  @ValidateNested({ each: true })
  @Type(() => BedDetailDto)
  bedDetails?: BedDetailDto[] | null;

  @IsOptional()
  @IsString()
  @Length(1, L.pictureUrl)
  pictureUrl?: string | null;
}
