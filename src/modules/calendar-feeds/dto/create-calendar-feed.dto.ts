import { IsDefined, IsString, MaxLength } from 'class-validator';
import { UpdateCalendarFeedDto } from './update-calendar-feed.dto';
import { URL_MAX_LENGTH } from '../../../platform/net/url-policy.rules';

/**
 * POST /v1/properties/{propertyId}/calendarFeeds (issue 14): the url, and the settings PATCH may change later
 * (absent: label none, checkInTime 16:00, checkOutTime 11:00, defaultNumberOfGuests 1, skipBlocked true).
 * The URL rules that need DNS run in the service.
 */
export class CreateCalendarFeedDto extends UpdateCalendarFeedDto {
  @IsDefined()
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  url: string;
}
