import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { allOf, IsHttpUrl, IsOptionalText, IsRequiredText } from '../../../platform/http/validators';
import { OtherAttributeDto } from '../../properties/dto/property-parts.dto';
import { BOOKING_LIMITS as L } from '../booking.rules';

/** The booking write shape's parts (spec 2.4), shared by create and update: each field's type and bounds in one decorator. */

/** guestDetails item (create and update): everything is stored; the read shape shows firstName and lastName only. */
export class GuestDto {
  @IsRequiredText(L.guestText)
  sourceId!: string;

  @IsRequiredText(L.guestText)
  firstName!: string;

  @IsOptionalText(L.guestText)
  lastName?: string | null;

  @IsOptional()
  @IsHttpUrl()
  sourcePictureUrl?: string | null;
}

export const IsBookingTitle = () => allOf(IsString(), Length(1, L.title));

export const IsNumberOfGuests = () => allOf(IsInt(), Min(L.numberOfGuests.min), Max(L.numberOfGuests.max));

/** 1-100 guests (the empty list is refused: spec 2.4 "non-empty"). */
export const IsGuestDetails = () =>
  allOf(
    IsArray(),
    ArrayMinSize(L.guestDetails.min),
    ArrayMaxSize(L.guestDetails.max),
    ValidateNested({ each: true }),
    Type(() => GuestDto),
  );

/** The property otherAttributes item shape and limits (spec 2.1 / 8), at most 100 items. */
export const IsBookingOtherAttributes = () =>
  allOf(
    IsArray(),
    ArrayMaxSize(L.otherAttributes),
    ValidateNested({ each: true }),
    Type(() => OtherAttributeDto),
  );
