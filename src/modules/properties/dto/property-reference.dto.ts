import { IsOptional, IsString, Length } from 'class-validator';

/**
 * The two ways a dependent request names its property. Extend it in the dependent's
 * DTO (`class CreateChecklistDto extends PropertyReferenceDto`); the "exactly one"
 * rule is PropertyResolver.resolve's, so it answers the same everywhere.
 */
export class PropertyReferenceDto {
  @IsOptional()
  @IsString()
  @Length(1, 100)
  propertyId?: string;

  @IsOptional()
  @IsString()
  @Length(1, 100)
  sourcePropertyId?: string;
}
