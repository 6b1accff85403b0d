import { IsBoolean, IsDefined, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../../platform/http/validators';
import { FEED_LIMITS as L, TIME_OF_DAY } from '../calendar-feed.rules';

export const TIME_MESSAGE = '$property must be a time of day as HH:MM (00:00-23:59)';

/** POST /v1/properties/{propertyId}/calendarFeeds (issue 14). The URL rules that need DNS run in the service. */
export class CreateCalendarFeedDto {
  @IsDefined()
  @IsString()
  @MaxLength(L.url)
  url: string;

  /** null or absent: no label. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(L.label)
  label?: string | null;

  /** Check-in time of date-only stays, in the property's time zone; default 16:00. */
  @OptionalNotNull()
  @IsString()
  @Matches(TIME_OF_DAY, { message: TIME_MESSAGE })
  checkInTime?: string;

  /** Check-out time of date-only stays, in the property's time zone; default 11:00. */
  @OptionalNotNull()
  @IsString()
  @Matches(TIME_OF_DAY, { message: TIME_MESSAGE })
  checkOutTime?: string;

  /** numberOfGuests of the bookings the feed creates; default 1. */
  @OptionalNotNull()
  @IsInt()
  @Min(L.numberOfGuests.min)
  @Max(L.numberOfGuests.max)
  defaultNumberOfGuests?: number;

  /** Skip events whose summary marks blocked dates; default true. */
  @OptionalNotNull()
  @IsBoolean()
  skipBlocked?: boolean;
}
