import { IsDefined } from 'class-validator';
import { IsHttpUrl, IsRequiredText } from '../../../platform/http/validators';
import { PropertyReferenceDto } from './property-reference.dto';

/** POST /v1/propertyPictures (spec 2.2): the picture's client id, where to fetch it, and its property. */
export class CreatePropertyPictureDto extends PropertyReferenceDto {
  @IsRequiredText(100)
  sourceId!: string;

  /** Checked again, with DNS, by the outbound URL policy on every redirect hop. */
  @IsDefined()
  @IsHttpUrl('$property must be an absolute http(s) URL')
  sourceUrl!: string;
}
