import { IsOptionalText } from '../../../platform/http/validators';

/**
 * The two ways a dependent request names its property. Extend it in the dependent's
 * DTO (`class CreateChecklistDto extends PropertyReferenceDto`); the "exactly one"
 * rule is PropertyResolver.resolve's, so it answers the same everywhere.
 */
export class PropertyReferenceDto {
  @IsOptionalText(100)
  propertyId?: string;

  @IsOptionalText(100)
  sourcePropertyId?: string;
}
