import { IsRequiredDateTime } from '../../../platform/http/validators';

/** PATCH /v1/bookings/{bookingId}/dates (spec 4.5): both dates required; endDate after startDate. */
export class ChangeBookingDatesDto {
  @IsRequiredDateTime() startDate!: string;
  @IsRequiredDateTime() endDate!: string;
}
