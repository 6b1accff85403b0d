import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../../platform/http/validators';
import { FEED_LIMITS as L, TIME_OF_DAY } from '../calendar-feed.rules';

const TIME_MESSAGE = '$property must be a time of day as HH:MM (00:00-23:59)';

/**
 * PATCH /v1/calendarFeeds/{id}: label (null clears it), times, guests, skipBlocked. The url is fixed at
 * creation (a new link is a new feed: its UIDs are another calendar's), so sending it is an unknown field.
 */
export class UpdateCalendarFeedDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(L.label)
  label?: string | null;

  /** Check-in time of date-only stays, in the property's time zone. */
  @OptionalNotNull()
  @IsString()
  @Matches(TIME_OF_DAY, { message: TIME_MESSAGE })
  checkInTime?: string;

  /** Check-out time of date-only stays, in the property's time zone. */
  @OptionalNotNull()
  @IsString()
  @Matches(TIME_OF_DAY, { message: TIME_MESSAGE })
  checkOutTime?: string;

  /** numberOfGuests of the bookings the feed creates. */
  @OptionalNotNull()
  @IsInt()
  @Min(L.numberOfGuests.min)
  @Max(L.numberOfGuests.max)
  defaultNumberOfGuests?: number;

  /** Skip events whose summary marks blocked dates. */
  @OptionalNotNull()
  @IsBoolean()
  skipBlocked?: boolean;
}
