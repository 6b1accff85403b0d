import { IsIn, IsOptional, IsString } from 'class-validator';
import { ListQueryDto } from '../../../../platform/pagination/list-query.dto';
import type { DeliveryStatus } from '../../webhook-delivery.entity';
import { DELIVERY_STATUSES } from '../webhook-delivery.response';
import { IsEventName } from './create-webhook.dto';

/** GET /v1/webhooks/{webhookId}/deliveries: the page, and (an extension) one status and one event name. */
export class ListDeliveriesQueryDto extends ListQueryDto {
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;

  @IsOptional()
  @IsString()
  @IsEventName()
  eventName?: string;
}
