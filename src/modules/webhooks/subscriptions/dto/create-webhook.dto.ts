import { applyDecorators } from '@nestjs/common';
import {
  ArrayContains,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidationArguments,
} from 'class-validator';
import { IsNested, OptionalNotNull } from '../../../../platform/http/validators';
import { RabbitmqOptionsDto } from './rabbitmq-options.dto';
import { EVENT_NAME_MAX_LENGTH, isValidEventFilter, isValidEventName } from '../event-filter.rules';
import { SIGNATURE_SCHEMES, SignatureScheme, SUBSCRIPTION_LIMITS as L } from '../webhook-subscription.rules';
import { URL_MAX_LENGTH } from '../../../../platform/net/url-policy.rules';
import { MtlsDto, MtlsSettings, OAuth2Dto, OAuth2Settings, ReceiverHeaders } from './receiver-auth.dto';

const FILTER_SHAPES = `an exact event name (property.create), a prefix wildcard (jobRequest.*) or *, at most ${EVENT_NAME_MAX_LENGTH} characters`;

/** How much of an offending entry the message quotes: enough to recognise it, never a whole oversized value. */
const QUOTED_MAX = 40;

function quote(entry: unknown): string {
  const text = JSON.stringify(entry) ?? String(entry);
  return text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX)}…` : text;
}

/** Every entry is a valid event filter; the message quotes the offending entries (up to five, each cut short). */
function IsEventFilterList(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isEventFilterList',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.every((entry) => isValidEventFilter(entry)),
        defaultMessage: (args?: ValidationArguments) => {
          const bad = Array.isArray(args?.value) ? args.value.filter((entry: unknown) => !isValidEventFilter(entry)) : [];
          const shown = bad.slice(0, 5).map(quote).join(', ');
          return `$property has invalid entries (${shown}${bad.length > 5 ? ', …' : ''}): each must be ${FILTER_SHAPES}`;
        },
      },
    });
  };
}

/**
 * An eventFilters field (create, update, replay): an array of SUBSCRIPTION_LIMITS' count of valid
 * event filters. Applied in the order the stacked decorators were, so the messages keep their order.
 */
export function EventFilterList(): PropertyDecorator {
  return applyDecorators(IsEventFilterList(), ArrayMaxSize(L.eventFiltersMax), ArrayMinSize(L.eventFiltersMin), IsArray());
}

export function IsEventName(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isEventName',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `$property must be an event name: letters and digits in dot-separated segments (property.create), at most ${EVENT_NAME_MAX_LENGTH} characters`,
      },
      validator: { validate: (value: unknown) => isValidEventName(value) },
    });
  };
}

/**
 * A signatureSchemes field (extension, create and update): ["v1"] or ["v1", "v1a"]; v1 is always in it
 * (the spec's signature is always sent), each scheme once.
 */
export function SignatureSchemeList(): PropertyDecorator {
  return applyDecorators(
    ArrayContains(['v1'], { message: "$property must include v1: the spec's HMAC signature is always sent" }),
    ArrayUnique({ message: '$property must list each scheme once' }),
    IsIn(SIGNATURE_SCHEMES, { each: true, message: `each entry of $property must be one of ${SIGNATURE_SCHEMES.join(', ')}` }),
    ArrayMaxSize(SIGNATURE_SCHEMES.length),
    ArrayMinSize(1),
    IsArray(),
  );
}

/** POST /v1/webhooks (spec 4.8). The URL rules that need DNS run in the service. */
export class CreateWebhookDto {
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  url: string;

  @EventFilterList()
  eventFilters: string[];

  @OptionalNotNull()
  @IsInt()
  @Min(L.maxRetriesMin)
  @Max(L.maxRetriesMax)
  maxRetries?: number;

  /** Extension: add "v1a" for ed25519 signatures beside v1 (default ["v1"]). */
  @OptionalNotNull()
  @SignatureSchemeList()
  signatureSchemes?: SignatureScheme[];
  @RateLimitPerSecond()
  rateLimitPerSecond?: number | null;

  /** Extension (issue 31): deliveries one at a time, in the events feed's order (default false). */
  @OptionalNotNull()
  @IsBoolean()
  ordered?: boolean;
  /** Extension: send each attempt's W3C traceparent (docs/webhooks.md "Trace context"); default false. */
  @OptionalNotNull()
  @IsBoolean()
  traceContext?: boolean;

  /** Extension (issue 43): required with an amqp(s) url, refused with http(s) (docs/webhooks.md "Message broker destinations"). */
  @OptionalNotNull()
  @IsNested(() => RabbitmqOptionsDto)
  rabbitmq?: RabbitmqOptionsDto;
  /** Extension (issue 42): custom headers sent with every attempt (docs/webhooks.md "Receivers behind authentication"). */
  @ReceiverHeaders()
  headers?: Record<string, string> | null;
  /** Extension (issue 42): an OAuth2 client-credentials token sent as Authorization: Bearer with every attempt. */
  @OAuth2Settings()
  oauth2?: OAuth2Dto | null;
  /** Extension (issue 42): a client certificate presented to the receiver, and the one CA trusted for it; null removes it (PATCH). */
  @MtlsSettings()
  mtls?: MtlsDto | null;
}

/**
 * Pacing per endpoint (an extension of the spec, docs/webhooks.md): attempts started per second at most,
 * across every worker; null (the default) is unpaced. Shared by create and update.
 */
export function RateLimitPerSecond(): PropertyDecorator {
  return applyDecorators(IsOptional(), IsInt(), Min(L.rateLimitPerSecondMin), Max(L.rateLimitPerSecondMax));
}
