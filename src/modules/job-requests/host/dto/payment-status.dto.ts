import { IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { PaymentStatus } from '../../job-request.entity';

export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'failed', 'successful'];

/** PATCH /v1/jobRequests/{jobRequestId}/paymentStatus. */
export class PaymentStatusDto {
  @IsDefined()
  @IsIn(PAYMENT_STATUSES)
  status!: PaymentStatus;

  /** null or left out: no description. */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;
}
