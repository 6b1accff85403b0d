import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../../platform/http/validators';
import { FEED_LIMITS as L, TIME_OF_DAY } from '../calendar-feed.rules';
import { TIME_MESSAGE } from './create-calendar-feed.dto';

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

  @OptionalNotNull()
  @IsString()
  @Matches(TIME_OF_DAY, { message: TIME_MESSAGE })
  checkInTime?: string;

  @OptionalNotNull()
  @IsString()
  @Matches(TIME_OF_DAY, { message: TIME_MESSAGE })
  checkOutTime?: string;

  @OptionalNotNull()
  @IsInt()
  @Min(L.numberOfGuests.min)
  @Max(L.numberOfGuests.max)
  defaultNumberOfGuests?: number;

  @OptionalNotNull()
  @IsBoolean()
  skipBlocked?: boolean;
}
