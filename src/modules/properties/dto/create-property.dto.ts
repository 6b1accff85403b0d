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
  ValidateNested,
} from 'class-validator';
import { IsCountryCode, IsTimeZone } from '../../../platform/http/validators';
import { PROPERTY_LIMITS as L } from '../property.rules';
import { BedDetailDto, LocationDto, PropertyDetailsDto } from './property-parts.dto';

/** POST /v1/properties (spec 2.1). Optional fields accept null as "not set". */
export class CreatePropertyDto {
  @IsDefined()
  @IsString()
  @Length(L.sourceId.min, L.sourceId.max)
  sourceId!: string;

  @IsDefined()
  @IsString()
  @Length(L.name.min, L.name.max)
  name!: string;

  @IsDefined()
  @IsCountryCode()
  countryCode!: string;

  @IsDefined()
  @IsTimeZone()
  timeZone!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => LocationDto)
  location!: LocationDto;

  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  beds!: number;

  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  bedrooms!: number;

  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(L.roomCount)
  bathrooms!: number;

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

  /** Legacy picture identifier, not a URL; POST /v1/propertyPictures is the way to add pictures. */
  @IsOptional()
  @IsString()
  @Length(1, L.pictureUrl)
  pictureUrl?: string | null;
}
