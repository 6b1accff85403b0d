import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Asymmetric signatures (Standard Webhooks `v1a`, ed25519), an option of a subscription beside the
 * spec's `v1`: v1a is on exactly while signing_key is set. The private keys are sealed like the HMAC
 * secrets (context `<subscription id>:v1a`); the public key is public and stored as shown
 * (`whpk_` + base64 of the raw 32 bytes). The previous key signs until previous_secret_expires_at, the
 * same overlap as the previous HMAC secret's.
 */
export class WebhookSignatureSchemes1764900000000 implements MigrationInterface {
  name = 'WebhookSignatureSchemes1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_subscriptions
         ADD COLUMN signing_key text,
         ADD COLUMN previous_signing_key text,
         ADD COLUMN public_key text,
         ADD CONSTRAINT webhook_subscriptions_v1a_key_pair CHECK ((signing_key IS NULL) = (public_key IS NULL)),
         ADD CONSTRAINT webhook_subscriptions_v1a_platform_only CHECK (kind = 'platform' OR signing_key IS NULL)`,
    );
    await q.query(
      `COMMENT ON COLUMN webhook_subscriptions.signing_key IS
         'v1a (ed25519) private key, base64 PKCS#8 DER, sealed like signing_secret with <id>:v1a as associated data; null while v1a is off'`,
    );
    await q.query(
      `COMMENT ON COLUMN webhook_subscriptions.previous_signing_key IS 'Sealed like signing_key; signs until previous_secret_expires_at'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_subscriptions
         DROP CONSTRAINT webhook_subscriptions_v1a_platform_only,
         DROP CONSTRAINT webhook_subscriptions_v1a_key_pair,
         DROP COLUMN public_key,
         DROP COLUMN previous_signing_key,
         DROP COLUMN signing_key`,
    );
  }
}
