import { IsBoolean, IsDefined, IsISO4217CurrencyCode, IsNumber, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { IsDateTime, IsListOf, IsNested, IsOptionalText, IsRequiredText } from '../../../platform/http/validators';
import { PropertyReferenceDto } from '../../properties/dto/property-reference.dto';
import { REMINDER_LIMITS as L } from '../reminder.rules';
import { JobTimeDto } from './job-time.dto';

export class ReminderChecklistDto {
  @IsRequiredText(L.checklistId)
  checklistId!: string;
}

/** jobRequestSettings (spec 2.5): pre-fills the job the reminder should turn into. */
export class JobRequestSettingsDto {
  @IsOptional()
  @IsNested(() => JobTimeDto)
  time?: JobTimeDto | null;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(L.offeredPriceMax)
  offeredPrice?: number | null;

  /** An ISO 4217 code in upper case (EUR, USD). */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: '$property must be an ISO 4217 currency code in upper case (e.g. EUR, USD)' })
  @IsISO4217CurrencyCode({ message: '$property must be an ISO 4217 currency code in upper case (e.g. EUR, USD)' })
  offeredPriceCurrency?: string | null;

  @IsOptional()
  @IsString()
  @Length(L.message.min, L.message.max)
  message?: string | null;
}

/** POST /v1/reminders (spec 2.5); propertyId / sourcePropertyId come from PropertyReferenceDto. Optional fields take null as "not set". */
export class CreateReminderDto extends PropertyReferenceDto {
  @IsRequiredText(L.title)
  title!: string;

  /** When it fires. */
  @IsDefined()
  @IsDateTime()
  date!: string;

  /** Ties the reminder to a booking by the client's id; stored as given (docs/reminders.md). */
  @IsOptionalText(100)
  sourceBookingId?: string | null;

  @IsOptionalText(L.sourceId)
  sourceId?: string | null;

  @IsOptional()
  @IsBoolean()
  actionable?: boolean | null;

  /** Checklists of the account, on the reminder's property (an empty list is allowed). */
  @IsOptional()
  @IsListOf(() => ReminderChecklistDto, L.checklists)
  checklists?: ReminderChecklistDto[] | null;

  @IsOptional()
  @IsNested(() => JobRequestSettingsDto)
  jobRequestSettings?: JobRequestSettingsDto | null;
}
