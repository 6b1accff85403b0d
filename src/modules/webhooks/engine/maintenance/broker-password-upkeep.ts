import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { SecretBoxError } from '../../../../platform/secrets/secret-box.rules';
import { brokerPasswordContext } from '../../rabbitmq-destination.rules';

const BATCH = 100;

/**
 * The RabbitMQ destinations' sealed broker passwords (issue 43) through a key rotation, as
 * WebhookSecretsService does for signing secrets: every password not sealed with the current key is
 * sealed again with it (only while the row still holds the value it was made from), so the old key can
 * leave SECRETS_ENCRYPTION_KEY without a broker destination losing its login. Run by the secrets task,
 * right after the signing secrets (webhook-maintenance.schedule.ts).
 */
@Injectable()
export class BrokerPasswordUpkeep {
  private readonly logger = new Logger(BrokerPasswordUpkeep.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  async run({ signal }: { signal?: AbortSignal } = {}): Promise<{ resealed: number; unopenable: number }> {
    const prefix = `v1.${this.box.currentKeyId}.`;
    let resealed = 0;
    let unopenable = 0;
    let afterId = '';
    while (!signal?.aborted) {
      const rows: Array<{ id: string; broker_password: string }> = await this.dataSource.query(
        `SELECT id, broker_password FROM webhook_subscriptions
          WHERE id > $2 AND broker_password IS NOT NULL AND NOT starts_with(broker_password, $1)
          ORDER BY id LIMIT $3`,
        [prefix, afterId, BATCH],
      );
      if (rows.length === 0) break;
      afterId = rows[rows.length - 1].id;
      for (const row of rows) {
        let now: string;
        try {
          const context = brokerPasswordContext(row.id);
          now = this.box.seal(this.box.open(row.broker_password, context), context);
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          unopenable++;
          continue;
        }
        const [, changed] = (await this.dataSource.query(
          `UPDATE webhook_subscriptions SET broker_password = $3 WHERE id = $1 AND broker_password = $2`,
          [row.id, row.broker_password, now],
        )) as [unknown, number];
        resealed += changed;
      }
    }
    if (unopenable > 0) {
      this.logger.error(
        { unopenable },
        'broker passwords sealed with a key SECRETS_ENCRYPTION_KEY no longer lists: those destinations cannot connect',
      );
    }
    if (resealed > 0) this.logger.log({ resealed, keyId: this.box.currentKeyId }, 'broker passwords sealed with the current key');
    return { resealed, unopenable };
  }
}
