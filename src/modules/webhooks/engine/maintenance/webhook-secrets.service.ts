import { Injectable, Logger } from '@nestjs/common';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { SecretBoxError } from '../../../../platform/secrets/secret-box.rules';
import { signingKeyContext } from '../../webhook-signer.rules';
import { StoredSecrets, WebhookSubscriptionsRepository } from '../../webhook-subscriptions.repository';
import { ReceiverAuthUpkeep } from './receiver-auth-upkeep';

const BATCH = 100;

export interface SecretsUpkeepResult {
  previousCleared: number;
  resealed: number;
  /** Secrets sealed with a key SECRETS_ENCRYPTION_KEY no longer lists: they cannot sign until it is put back. */
  unopenable: number;
}

/**
 * Upkeep of the stored signing secrets (worker, on the retention interval): a replaced secret is
 * dropped once its 24-hour overlap has ended, and every secret not sealed with the current key
 * (stored before encryption, or sealed with a key being rotated out) is sealed again with it. That
 * second step is how existing plaintext secrets get encrypted and how a key rotation completes.
 */
@Injectable()
export class WebhookSecretsService {
  private readonly logger = new Logger(WebhookSecretsService.name);

  constructor(
    private readonly repository: WebhookSubscriptionsRepository,
    private readonly box: SecretBox,
    private readonly receiverAuth: ReceiverAuthUpkeep,
  ) {}

  /** `signal` ends the run early, between batches. */
  async run({ signal }: { signal?: AbortSignal } = {}): Promise<SecretsUpkeepResult> {
    const previousCleared = await this.repository.clearExpiredPreviousSecrets();
    let resealed = 0;
    let unopenable = 0;
    let afterId = '';
    while (!signal?.aborted) {
      const rows = await this.repository.withSecretsNotSealedBy(this.box.currentKeyId, afterId, BATCH);
      if (rows.length === 0) break;
      afterId = rows[rows.length - 1].id;
      const changes: Array<{ was: StoredSecrets; now: StoredSecrets }> = [];
      for (const was of rows) {
        try {
          changes.push({
            was,
            now: {
              id: was.id,
              signingSecret: this.reseal(was.signingSecret, was.id),
              previousSecret: this.resealOptional(was.previousSecret, was.id),
              signingKey: this.resealOptional(was.signingKey, signingKeyContext(was.id)),
              previousSigningKey: this.resealOptional(was.previousSigningKey, signingKeyContext(was.id)),
            },
          });
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          unopenable++;
        }
      }
      resealed += await this.repository.replaceSecrets(changes);
    }
    // Receiver credentials (issue 42) move to the current key with the signing secrets.
    const receivers = await this.receiverAuth.run(signal);
    resealed += receivers.resealed;
    unopenable += receivers.unopenable;
    if (unopenable > 0) {
      this.logger.error(
        { unopenable },
        'signing secrets sealed with a key SECRETS_ENCRYPTION_KEY no longer lists: their deliveries cannot be signed',
      );
    }
    if (previousCleared + resealed > 0) {
      this.logger.log(
        { previousCleared, resealed, keyId: this.box.currentKeyId },
        'signing secrets: expired previous secrets cleared, others sealed with the current key',
      );
    }
    return { previousCleared, resealed, unopenable };
  }

  private reseal(stored: string, context: string): string {
    return this.box.needsResealing(stored) ? this.box.seal(this.box.open(stored, context), context) : stored;
  }

  private resealOptional(stored: string | null, context: string): string | null {
    return stored === null ? null : this.reseal(stored, context);
  }
}
