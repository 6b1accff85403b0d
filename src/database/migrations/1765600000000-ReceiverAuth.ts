import { SqlMigration } from '../migration-sql';

/**
 * Receivers behind authentication (issue 42, an extension): `webhook_subscriptions.receiver_auth` holds a
 * subscription's custom headers and OAuth2 client-credentials settings (receiver-auth.rules.ts,
 * StoredReceiverAuth): header values and the client secret sealed with SECRETS_ENCRYPTION_KEY, names and
 * the other settings open for reads. NULL (the default): nothing beyond the signature is sent.
 */
export class ReceiverAuth1765600000000 extends SqlMigration {
  name = 'ReceiverAuth1765600000000';

  protected readonly upSql = [`ALTER TABLE webhook_subscriptions ADD COLUMN receiver_auth jsonb`];

  protected readonly downSql = [`ALTER TABLE webhook_subscriptions DROP COLUMN receiver_auth`];
}
