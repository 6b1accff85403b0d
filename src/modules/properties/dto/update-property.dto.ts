import { IsDefined, ValidateIf } from 'class-validator';
import { LocationDto, PropertyFieldsDto } from './property-parts.dto';

/** Fields required on create may be left out of an update but never set to null. */
const sent = (_: object, value: unknown) => value !== undefined;

/**
 * PATCH /v1/properties/{propertyId}: any subset of the create fields. Each field sent
 * replaces the stored one, except details, which is merged key by key (see applyDetails).
 * null clears an optional field (type, details, tags, bedDetails, pictureUrl).
 */
export class UpdatePropertyDto extends PropertyFieldsDto {
  @ValidateIf(sent) @IsDefined() declare sourceId?: string;
  @ValidateIf(sent) @IsDefined() declare name?: string;
  @ValidateIf(sent) @IsDefined() declare countryCode?: string;
  @ValidateIf(sent) @IsDefined() declare timeZone?: string;
  @ValidateIf(sent) @IsDefined() declare location?: LocationDto;
  @ValidateIf(sent) @IsDefined() declare beds?: number;
  @ValidateIf(sent) @IsDefined() declare bedrooms?: number;
  @ValidateIf(sent) @IsDefined() declare bathrooms?: number;
}
