import { IsDefined } from 'class-validator';
import { LocationDto, PropertyFieldsDto } from './property-parts.dto';

/** POST /v1/properties (spec 2.1): the core fields are required; optional fields accept null as "not set". */
export class CreatePropertyDto extends PropertyFieldsDto {
  @IsDefined() declare sourceId: string;
  @IsDefined() declare name: string;
  @IsDefined() declare countryCode: string;
  @IsDefined() declare timeZone: string;
  @IsDefined() declare location: LocationDto;
  @IsDefined() declare beds: number;
  @IsDefined() declare bedrooms: number;
  @IsDefined() declare bathrooms: number;
}
