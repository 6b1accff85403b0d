import { IsIn, IsInt, IsOptional } from 'class-validator';
import { IsOptionalText } from '../../../platform/http/validators';
import { ToInt } from '../../../platform/http/query-transforms';
import { WindowListQueryDto } from '../../../platform/pagination/list-query.dto';
import { BOOKING_STATUSES } from '../booking.rules';

/** GET /v1/bookings?dateFrom=&dateTo=[&propertyId=][&status=][&cursor=][&limit=] (spec 4.5). */
export class ListBookingsQueryDto extends WindowListQueryDto {
  @IsOptionalText(100)
  propertyId?: string;

  /** Only 1, 2 or 3 (spec 3.1); anything else is a 400. */
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'status must be an integer' })
  @IsIn(BOOKING_STATUSES, { message: 'status must be one of 1 (created), 2 (dates changed) or 3 (cancelled)' })
  status?: number;
}
