import { Equals, IsOptional, IsString, Matches } from 'class-validator';
import { IsOptionalText, OptionalNotNull } from '../../../../platform/http/validators';

/**
 * POST /v1/jobRequests/{jobRequestId}/comments, as JSON or as the text fields of a
 * multipart/form-data body (the image is its `file` part). At least one of message or file.
 */
export class CreateCommentDto {
  @IsOptionalText(5000)
  message?: string | null;

  /** A BCP 47 language tag, e.g. `en` or `pt-BR`. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, { message: '$property must be a language code such as en or pt-BR' })
  languageCode?: string | null;

  /** The image goes in the multipart `file` part; as a text field or a JSON member it is refused. */
  @OptionalNotNull()
  @Equals(undefined, { message: 'file must be sent as the file part of a multipart/form-data body' })
  file?: never;
}
