import { IsDefined, IsOptional } from 'class-validator';
import { IsTagList, OptionalNotNull } from '../../../platform/http/validators';
import { OtherAttributeDto } from '../../properties/dto/property-parts.dto';
import { GuestDto, IsBookingOtherAttributes, IsBookingTitle, IsGuestDetails, IsNumberOfGuests } from './booking-parts.dto';

/**
 * PATCH /v1/bookings/{bookingId} (spec 4.5): all optional; each field sent replaces the stored one.
 * null clears title, tags and otherAttributes; numberOfGuests and guestDetails (required on create)
 * may be left out but not cleared. Dates change through PATCH …/dates, the status through it and cancel.
 */
export class UpdateBookingDto {
  @IsOptional()
  @IsBookingTitle()
  title?: string | null;

  @OptionalNotNull()
  @IsDefined()
  @IsNumberOfGuests()
  numberOfGuests?: number;

  @OptionalNotNull()
  @IsDefined()
  @IsGuestDetails()
  guestDetails?: GuestDto[];

  @IsOptional()
  @IsTagList()
  tags?: string[] | null;

  @IsOptional()
  @IsBookingOtherAttributes()
  otherAttributes?: OtherAttributeDto[] | null;
}
