import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsStringOrStringArray } from '../../../platform/http/validators';
import type { BedType } from '../property.entity';
import { BED_TYPES, PROPERTY_LIMITS as L } from '../property.rules';

/** The nested objects of the property write shape (spec 2.1); shared by create and update. */

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

  @IsDefined()
  @IsString()
  @Length(1, L.displayLabel)
  displayLabel!: string;

  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(L.bedQuantity)
  quantity!: number;
}

/** Same shape for property and booking otherAttributes (spec 2.1). */
export class OtherAttributeDto {
  @IsDefined()
  @IsString()
  @Length(1, L.attributeLabel)
  label!: string;

  @IsDefined()
  @IsStringOrStringArray({ maxLength: L.attributeValue, maxItems: L.attributeValueItems })
  value!: string | string[];

  @IsOptional()
  @IsString()
  @MaxLength(L.attributeGroup)
  group?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.attributePictures)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { each: true })
  @MaxLength(L.url, { each: true })
  pictures?: string[];
}

export class PropertyDetailsDto {
  @IsOptional() @IsString() @MaxLength(L.detailText) information?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) access?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) garbage?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) parking?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiName?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiPassword?: string | null;
  @IsOptional() @IsString() @MaxLength(L.detailText) wifiDescription?: string | null;

  /** Write-only: stored, never returned (spec 2.1). */
  @IsOptional() @IsBoolean() disableRemindersAutomation?: boolean | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.otherAttributes)
  @ValidateNested({ each: true })
  @Type(() => OtherAttributeDto)
  otherAttributes?: OtherAttributeDto[] | null;
}

