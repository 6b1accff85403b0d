import { Equals } from 'class-validator';

/**
 * POST /v1/webhooks/{webhookId}/rotateSecret takes no body, so every field sent is unknown (objectStrict).
 * The strict pipe refuses a class without any rule (forbidUnknownValues); this member gives it one and
 * admits nothing.
 */
export class RotateSecretDto {
  @Equals(undefined)
  readonly noFields?: undefined;
}
