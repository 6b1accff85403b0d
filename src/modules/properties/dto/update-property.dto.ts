import { IsDefined } from 'class-validator';
import { OptionalNotNull } from '../../../platform/http/validators';
import { LocationDto, PropertyFieldsDto } from './property-parts.dto';

/**
 * PATCH /v1/properties/{propertyId}: any subset of the create fields. Each field sent
 * replaces the stored one, except details, which is merged key by key (see applyDetails).
 * null clears an optional field (type, details, tags, bedDetails, pictureUrl); the fields
 * required on create may be left out but never set to null.
 */
export class UpdatePropertyDto extends PropertyFieldsDto {
  @OptionalNotNull() @IsDefined() declare sourceId?: string;
  @OptionalNotNull() @IsDefined() declare name?: string;
  @OptionalNotNull() @IsDefined() declare countryCode?: string;
  @OptionalNotNull() @IsDefined() declare timeZone?: string;
  @OptionalNotNull() @IsDefined() declare location?: LocationDto;
  @OptionalNotNull() @IsDefined() declare beds?: number;
  @OptionalNotNull() @IsDefined() declare bedrooms?: number;
  @OptionalNotNull() @IsDefined() declare bathrooms?: number;
}
