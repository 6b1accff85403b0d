import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import { OptionalNotNull } from '../../../../platform/http/validators';
import { URL_MAX_LENGTH } from '../../../../platform/net/url-policy.rules';
import { OAUTH2_AUTH_METHODS, OAuth2AuthMethod, receiverHeadersIssue } from '../../receiver-auth.rules';
import { MTLS_PEM_MAX } from '../../receiver-mtls.rules';

/** Printable ASCII, as a form field or a Basic credential carries it without surprises. */
const PRINTABLE = /^[\x20-\x7e]*$/;
const PRINTABLE_MESSAGE = { message: '$property must be printable ASCII' };

/**
 * `headers` (issue 42, an extension; create and PATCH): custom headers sent with every attempt. null
 * (PATCH) removes them; the rules and their messages, which name the header, are receiverHeadersIssue's.
 */
export function ReceiverHeaders(): PropertyDecorator {
  return applyDecorators(IsOptional(), (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'receiverHeaders',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => receiverHeadersIssue(value) === null,
        defaultMessage: (args?: ValidationArguments) => `$property: ${receiverHeadersIssue(args?.value)}`,
      },
    });
  });
}

/** `oauth2` (issue 42, an extension): the client-credentials grant's settings; PATCH replaces the whole object. */
export class OAuth2Dto {
  /** Checked against the same URL rules as the subscription's url (in the service: they need DNS). */
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  tokenUrl: string;

  @IsString()
  @Length(1, 256)
  @Matches(PRINTABLE, PRINTABLE_MESSAGE)
  clientId: string;

  @IsString()
  @Length(1, 1024)
  @Matches(PRINTABLE, PRINTABLE_MESSAGE)
  clientSecret: string;

  @OptionalNotNull()
  @IsString()
  @Length(1, 1024)
  @Matches(PRINTABLE, PRINTABLE_MESSAGE)
  scope?: string;

  @OptionalNotNull()
  @IsString()
  @Length(1, 1024)
  @Matches(PRINTABLE, PRINTABLE_MESSAGE)
  audience?: string;

  @OptionalNotNull()
  @IsIn(OAUTH2_AUTH_METHODS)
  authMethod?: OAuth2AuthMethod;
}

/** An `oauth2` field: an object (null on PATCH removes it). */
export function OAuth2Settings(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => OAuth2Dto),
  );
}

/** `mtls` (issue 42, an extension): PEM texts; whether they parse, match and are current is checked in the service. */
export class MtlsDto {
  @IsString()
  @MaxLength(MTLS_PEM_MAX)
  clientCertificate: string;

  @IsString()
  @MaxLength(MTLS_PEM_MAX)
  clientKey: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(MTLS_PEM_MAX)
  serverCaCertificate?: string;
}

/** An `mtls` field: an object (null on PATCH removes it). */
export function MtlsSettings(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => MtlsDto),
  );
}
