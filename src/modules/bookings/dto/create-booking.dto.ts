import { IsDefined, IsOptional, IsString, Length } from 'class-validator';
import { IsRequiredDateTime, IsTagList } from '../../../platform/http/validators';
import { PropertyReferenceDto } from '../../properties/dto/property-reference.dto';
import { BOOKING_LIMITS as L } from '../booking.rules';
import { GuestDto, IsBookingOtherAttributes, IsBookingTitle, IsGuestDetails, IsNumberOfGuests } from './booking-parts.dto';
import { OtherAttributeDto } from '../../properties/dto/property-parts.dto';

/** POST /v1/bookings (spec 2.4); propertyId / sourcePropertyId come from PropertyReferenceDto. Optional fields take null as "not set". */
export class CreateBookingDto extends PropertyReferenceDto {
  @IsDefined()
  @IsString()
  @Length(L.sourceBookingId.min, L.sourceBookingId.max)
  sourceBookingId!: string;

  /** Check-in. */
  @IsRequiredDateTime()
  startDate!: string;

  /** Check-out, after startDate (booking.rules stayOf). */
  @IsRequiredDateTime()
  endDate!: string;

  @IsDefined()
  @IsNumberOfGuests()
  numberOfGuests!: number;

  @IsDefined()
  @IsGuestDetails()
  guestDetails!: GuestDto[];

  @IsOptional()
  @IsBookingTitle()
  title?: string | null;

  @IsOptional()
  @IsTagList()
  tags?: string[] | null;

  @IsOptional()
  @IsBookingOtherAttributes()
  otherAttributes?: OtherAttributeDto[] | null;
}
