import { IsDefined } from 'class-validator';
import { IsDateTime } from '../../../platform/http/validators';

/** PATCH /v1/bookings/{bookingId}/dates (spec 4.5): both dates required; endDate after startDate. */
export class ChangeBookingDatesDto {
  @IsDefined()
  @IsDateTime()
  startDate!: string;

  @IsDefined()
  @IsDateTime()
  endDate!: string;
}
