import { SqlMigration } from '../migration-sql';

/**
 * Webhook signing secrets are stored sealed (AES-256-GCM, src/platform/secrets): `v1.<key id>.<…>`.
 * Secrets stored before are sealed by the worker's secrets upkeep (webhook-secrets, on the retention
 * interval; until then they are read as they are), because sealing needs SECRETS_ENCRYPTION_KEY, which
 * a migration does not have. Replaced secrets whose 24-hour overlap has ended sign nothing and go now.
 */
export class SealedSigningSecrets1764050000000 extends SqlMigration {
  name = 'SealedSigningSecrets1764050000000';

  protected upSql = [
    `UPDATE webhook_subscriptions SET previous_secret = NULL, previous_secret_expires_at = NULL
      WHERE previous_secret IS NOT NULL AND previous_secret_expires_at <= now()`,
    `COMMENT ON COLUMN webhook_subscriptions.signing_secret IS
       'Sealed: v1.<key id>.<base64url(iv|ciphertext|tag)>, AES-256-GCM with the subscription id as associated data (or plaintext until the worker seals it)'`,
    `COMMENT ON COLUMN webhook_subscriptions.previous_secret IS 'Sealed like signing_secret; cleared once previous_secret_expires_at has passed'`,
  ];

  protected downSql = [
    `COMMENT ON COLUMN webhook_subscriptions.signing_secret IS NULL`,
    `COMMENT ON COLUMN webhook_subscriptions.previous_secret IS NULL`,
  ];
}
