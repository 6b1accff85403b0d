import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { SecretBoxError } from '../../../../platform/secrets/secret-box.rules';
import { resealedReceiverAuth, StoredReceiverAuth } from '../../receiver-auth.rules';
import { WebhookSubscriptionEntity } from '../../webhook-subscription.entity';

const BATCH = 100;

/**
 * The key-rotation upkeep of receiver credentials (issue 42), run with the signing secrets' upkeep
 * (WebhookSecretsService): header values, client secrets and client keys in `receiver_auth` not sealed
 * with the current key are sealed again with it, each row only while it still holds what was read (a
 * PATCH in between wins). Returns how many rows changed and how many did not open.
 */
@Injectable()
export class ReceiverAuthUpkeep {
  constructor(
    @InjectRepository(WebhookSubscriptionEntity) private readonly db: Repository<WebhookSubscriptionEntity>,
    private readonly box: SecretBox,
  ) {}

  async run(signal?: AbortSignal): Promise<{ resealed: number; unopenable: number }> {
    const prefix = `v1.${this.box.currentKeyId}.%`;
    let resealed = 0;
    let unopenable = 0;
    let afterId = '';
    while (!signal?.aborted) {
      const rows: Array<{ id: string; receiver_auth: StoredReceiverAuth }> = await this.db.query(
        `SELECT id, receiver_auth FROM webhook_subscriptions
          WHERE id > $2 AND receiver_auth IS NOT NULL
            AND (receiver_auth #>> '{headers,sealed}' NOT LIKE $1 OR receiver_auth #>> '{oauth2,clientSecret}' NOT LIKE $1
                 OR receiver_auth #>> '{mtls,clientKey}' NOT LIKE $1)
          ORDER BY id LIMIT $3`,
        [prefix, afterId, BATCH],
      );
      if (rows.length === 0) break;
      afterId = rows[rows.length - 1].id;
      for (const row of rows) {
        let next: StoredReceiverAuth | undefined;
        try {
          next = resealedReceiverAuth(row.receiver_auth, row.id, (sealed, context) =>
            this.box.needsResealing(sealed) ? this.box.seal(this.box.open(sealed, context), context) : sealed,
          );
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          unopenable++;
          continue;
        }
        if (!next) continue;
        const [, affected] = (await this.db.query(
          `UPDATE webhook_subscriptions SET receiver_auth = $3::jsonb WHERE id = $1 AND receiver_auth = $2::jsonb`,
          [row.id, JSON.stringify(row.receiver_auth), JSON.stringify(next)],
        )) as [unknown, number];
        resealed += affected;
      }
    }
    return { resealed, unopenable };
  }
}
