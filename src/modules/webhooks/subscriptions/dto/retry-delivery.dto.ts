import { Equals } from 'class-validator';

/** POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry takes no body: every field is unknown (see RotateSecretDto). */
export class RetryDeliveryDto {
  @Equals(undefined)
  readonly noFields?: undefined;
}
