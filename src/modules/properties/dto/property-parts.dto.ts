import { IsBoolean, IsDefined, IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import {
  IsCountryCode,
  IsHttpUrlList,
  IsListOf,
  IsNested,
  IsOptionalText,
  IsRequiredText,
  IsStringOrStringArray,
  IsTagList,
  IsTimeZone,
} from '../../../platform/http/validators';
import { URL_MAX_LENGTH } from '../../../platform/net/url-policy.rules';
import type { BedType } from '../property.entity';
import { BED_TYPES, PROPERTY_LIMITS as L } from '../property.rules';

/** The property write shape (spec 2.1): its nested objects and its fields, shared by create and update. */

export class LocationDto {
  @IsDefined()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-90)
  @Max(90)
  latitude!: number;

  @IsDefined()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180)
  @Max(180)
  longitude!: number;
}

export class BedDetailDto {
  @IsDefined()
  @IsIn(BED_TYPES)
  bedType!: BedType;

  @IsDefined()
  @IsBoolean()
  twinable!: boolean;

  @IsRequiredText(L.displayLabel)
  displayLabel!: string;

  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(L.bedQuantity)
  quantity!: number;
}

/** Same shape for property and booking otherAttributes (spec 2.1). */
export class OtherAttributeDto {
  @IsRequiredText(L.attributeLabel)
  label!: string;

  @IsDefined()
  @IsStringOrStringArray({ maxLength: L.attributeValue, maxItems: L.attributeValueItems })
  value!: string | string[];

  @IsOptional()
  @IsString()
  @MaxLength(L.attributeGroup)
  group?: string;

  @IsOptional()
  @IsHttpUrlList(L.attributePictures)
  pictures?: string[];
}

/**
 * The property details' texts (spec 2.1), as the property's write shape and a job's property (spec 2.6,
 * JobPropertyDetailsDto) both take them; each adds its own otherAttributes (a job's are tighter).
 */
export class PropertyDetailTextsDto {
  @IsOptional() @IsString() @MaxLength(L.detailText) information?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) access?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) garbage?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) parking?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiName?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiPassword?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiDescription?: string | null;
}

export class PropertyDetailsDto extends PropertyDetailTextsDto {
  /** Write-only: stored, never returned (spec 2.1). */
  @IsOptional() @IsBoolean() disableRemindersAutomation?: boolean | null;

  @IsOptional()
  @IsListOf(() => OtherAttributeDto, L.otherAttributes)
  otherAttributes?: OtherAttributeDto[] | null;
}

/**
 * Every field of the write shape with its type and bounds, but no presence rule for the eight
 * core fields (sourceId ... bathrooms): CreatePropertyDto requires them, UpdatePropertyDto lets
 * them be left out. The optional fields take null as "not set" in both, so their rule is here.
 * Subclasses add presence rules with `@IsDefined() declare field: T`: `declare` re-types the
 * inherited field without redefining it, and class-validator adds a subclass's rules to its parent's.
 */
export class PropertyFieldsDto {
  @IsString()
  @Length(L.sourceId.min, L.sourceId.max)
  sourceId?: string;

  @IsString()
  @Length(L.name.min, L.name.max)
  name?: string;

  @IsCountryCode()
  countryCode?: string;

  @IsTimeZone()
  timeZone?: string;

  /** Both coordinates are required whenever location is sent (spec 2.1): LocationDto requires them. */
  @IsNested(() => LocationDto)
  location?: LocationDto;

  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  beds?: number;

  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  bedrooms?: number;

  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  bathrooms?: number;

  @IsOptional()
  @IsString()
  @MaxLength(L.type)
  type?: string | null;

  @IsOptional()
  @IsNested(() => PropertyDetailsDto)
  details?: PropertyDetailsDto | null;

  @IsOptional()
  @IsTagList()
  tags?: string[] | null;

  @IsOptional()
  @IsListOf(() => BedDetailDto, L.bedDetails)
  bedDetails?: BedDetailDto[] | null;

  /** Legacy picture identifier, not a URL; POST /v1/propertyPictures is the way to add pictures. */
  @IsOptionalText(URL_MAX_LENGTH)
  pictureUrl?: string | null;
}
