import { IsDefined, IsString, IsUrl, Length, MaxLength } from 'class-validator';
import { PropertyReferenceDto } from './property-reference.dto';

/** POST /v1/propertyPictures (spec 2.2): the picture's client id, where to fetch it, and its property. */
export class CreatePropertyPictureDto extends PropertyReferenceDto {
  @IsDefined()
  @IsString()
  @Length(1, 100)
  sourceId!: string;

  /** Checked again, with DNS, by the outbound URL policy on every redirect hop. */
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: '$property must be an absolute http(s) URL' },
  )
  sourceUrl!: string;
}
