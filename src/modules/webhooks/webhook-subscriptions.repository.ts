import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThan, Repository } from 'typeorm';
import { DeliveryAttempt, DeliveryStatus, WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity';
import type { RabbitmqOptions } from './rabbitmq-destination.rules';
import type { StoredReceiverAuth } from './receiver-auth.rules';

/** The columns PATCH may change, plus what enabling resets. */
export interface SubscriptionChanges {
  url?: string;
  eventFilters?: string[];
  enabled?: boolean;
  rateLimitPerSecond?: number | null;
  ordered?: boolean;
  traceContext?: boolean;
  /** A RabbitMQ destination's options and sealed password (issue 43); nulls on an HTTP receiver. */
  rabbitmq?: RabbitmqOptions | null;
  brokerPassword?: string | null;
  /** Receiver authentication (issue 42): the whole column, as receiver-auth-settings.ts computed it. */
  receiverAuth?: StoredReceiverAuth | null;
  disabledReason?: null;
  consecutiveFailures?: 0;
  backpressureUntil?: null;
  /** signatureSchemes (extension): a new sealed v1a key and its public key, or nulls to turn v1a off. */
  signingKey?: string | null;
  previousSigningKey?: null;
  publicKey?: string | null;
}

/** The delivery log's filters (an extension of spec 4.8's log). */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventName?: string;
}

/** The UNIQUE (account_id, url) constraint: one subscription per URL within an account. */
export const URL_UNIQUE_CONSTRAINT = 'webhook_subscriptions_account_id_url_key';

/**
 * Subscription and delivery-log queries of the subscriptions API, every one scoped by account, the
 * worker's upkeep of stored secrets, and the operational events' reads (dark mark, last failures). Writes to webhook_deliveries (test deliveries too) live in
 * WebhookDeliveriesRepository. Secrets are stored sealed (SecretBox); this file never sees them open.
 */

@Injectable()
export class WebhookSubscriptionsRepository {
  constructor(
    @InjectRepository(WebhookSubscriptionEntity) private readonly subscriptions: Repository<WebhookSubscriptionEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
  ) {}

  /** All of an account's subscriptions in creation order (the list is unpaginated). */
  listByAccount(accountId: string): Promise<WebhookSubscriptionEntity[]> {
    return this.subscriptions.find({ where: { accountId, kind: 'platform' }, order: { id: 'ASC' } });
  }

  async find(accountId: string, id: string, manager?: EntityManager, lock = false): Promise<WebhookSubscriptionEntity | null> {
    const repo = manager ? manager.getRepository(WebhookSubscriptionEntity) : this.subscriptions;
    return repo.findOne({ where: { accountId, id, kind: 'platform' }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  /** The subscription holding a url (and, for a RabbitMQ destination, exchange and routing key: the unique index's key). */
  async findIdByUrl(accountId: string, url: string, rabbitmq: RabbitmqOptions | null = null): Promise<string | undefined> {
    const [row]: Array<{ id: string }> = await this.subscriptions.query(
      `SELECT id FROM webhook_subscriptions
        WHERE account_id = $1 AND url = $2 AND kind = 'platform' AND coalesce(rabbitmq, 'null'::jsonb) = $3::jsonb`,
      [accountId, url, JSON.stringify(rabbitmq)],
    );
    return row?.id;
  }

  async insert(manager: EntityManager, row: WebhookSubscriptionEntity): Promise<void> {
    await manager.getRepository(WebhookSubscriptionEntity).insert(row);
  }

  /** Writes only the given columns, so counters the delivery engine keeps are not overwritten. */
  async update(manager: EntityManager, accountId: string, id: string, changes: SubscriptionChanges): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await manager.getRepository(WebhookSubscriptionEntity).update({ accountId, id }, { ...changes, updatedAt: () => 'now()' });
  }

  /**
   * The current secret becomes the previous one (signing until `previousExpiresAt`) and `secret` the current one,
   * in one statement; likewise the v1a key when the subscription has v1a on (`key` is ignored otherwise).
   * A previous secret still within its 24 hours is dropped: only two secrets ever sign. Returns the
   * new public key (null with v1a off) and whether it is ordered, or undefined when there is no such subscription.
   */
  async rotateSecret(
    accountId: string,
    id: string,
    secret: string,
    key: { sealed: string; publicKey: string },
    previousExpiresAt: Date,
  ): Promise<{ publicKey: string | null; ordered: boolean } | undefined> {
    // A top-level UPDATE: the driver answers [rows, affected]. Right-hand sides read the row as it was.
    const [rows]: [Array<{ public_key: string | null; ordered: boolean }>, number] = await this.subscriptions.query(
      `UPDATE webhook_subscriptions
          SET previous_secret = signing_secret, signing_secret = $3, previous_secret_expires_at = $4,
              previous_signing_key = signing_key,
              signing_key = CASE WHEN signing_key IS NULL THEN NULL ELSE $5 END,
              public_key = CASE WHEN signing_key IS NULL THEN NULL ELSE $6 END,
              updated_at = now()
        WHERE account_id = $1 AND id = $2 AND kind = 'platform'
        RETURNING public_key, ordered`,
      [accountId, id, secret, previousExpiresAt, key.sealed, key.publicKey],
    );
    return rows[0] ? { publicKey: rows[0].public_key, ordered: rows[0].ordered } : undefined;
  }

  /** The account's legacy webhook (at most one: a partial unique index), if set. */
  findLegacy(accountId: string): Promise<WebhookSubscriptionEntity | null> {
    return this.subscriptions.findOne({ where: { accountId, kind: 'legacy' } });
  }

  /**
   * Sets the account's legacy webhook URL in one statement: created (subscribed to every event, unsigned),
   * or its URL replaced and delivery switched back on (failure counter and reason cleared), as a PUT does.
   */
  async upsertLegacy(row: { id: string; accountId: string; url: string; maxRetries: number }): Promise<WebhookSubscriptionEntity> {
    await this.subscriptions.query(
      `INSERT INTO webhook_subscriptions (id, account_id, kind, url, event_filters, enabled, max_retries, signing_secret)
       VALUES ($1, $2, 'legacy', $3, '{*}', true, $4, NULL)
       ON CONFLICT (account_id) WHERE kind = 'legacy'
       DO UPDATE SET url = EXCLUDED.url, enabled = true, disabled_reason = NULL, consecutive_failures = 0, updated_at = now()`,
      [row.id, row.accountId, row.url, row.maxRetries],
    );
    return (await this.findLegacy(row.accountId))!;
  }

  /** Removes the account's legacy webhook and its delivery log; false when there was none. */
  async deleteLegacy(accountId: string): Promise<boolean> {
    const result = await this.subscriptions.delete({ accountId, kind: 'legacy' });
    return (result.affected ?? 0) > 0;
  }

  /** Deletes the subscription; its deliveries go with it (ON DELETE CASCADE). */
  async delete(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    const result = await manager.getRepository(WebhookSubscriptionEntity).delete({ accountId, id, kind: 'platform' });
    return (result.affected ?? 0) > 0;
  }

  async deliveryExists(accountId: string, subscriptionId: string, deliveryId: string): Promise<boolean> {
    return this.deliveries.exists({ where: { accountId, subscriptionId, id: deliveryId } });
  }

  /** One delivery of the subscription (index webhook_deliveries_log_idx); null when it is not one of its deliveries. */
  findDelivery(accountId: string, subscriptionId: string, deliveryId: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOne({ where: { accountId, subscriptionId, id: deliveryId } });
  }

  /**
   * Newest first, keyset on id (index webhook_deliveries_log_idx): ids sort by creation. The filters are
   * checked on the rows the index walks (no index of their own: the log is read a page at a time).
   */
  listDeliveries(
    accountId: string,
    subscriptionId: string,
    beforeId: string | undefined,
    take: number,
    filter: DeliveryFilter = {},
  ): Promise<WebhookDeliveryEntity[]> {
    return this.deliveries.find({
      where: {
        accountId,
        subscriptionId,
        ...(beforeId ? { id: LessThan(beforeId) } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.eventName ? { eventName: filter.eventName } : {}),
      },
      order: { id: 'DESC' },
      take,
    });
  }

  /**
   * Failing deliveries (failed for good, or failed and waiting for a retry) among each of the account's
   * subscriptions' `newest` deliveries, newest first: ONE statement for every subscription (a lateral
   * read of each one's newest by index webhook_deliveries_log_idx), not one per subscription.
   */
  recentFailures(accountId: string, newest: number): Promise<WebhookDeliveryEntity[]> {
    return this.deliveries
      .createQueryBuilder('d')
      .where('d.accountId = :accountId', { accountId })
      .andWhere(
        `d.id IN (SELECT n.id FROM webhook_subscriptions s
                   CROSS JOIN LATERAL (SELECT id, status, attempt_count FROM webhook_deliveries
                                        WHERE account_id = s.account_id AND subscription_id = s.id
                                        ORDER BY id DESC LIMIT :newest) n
                  WHERE s.account_id = :accountId AND s.kind = 'platform'
                    AND (n.status = 'failed_permanent' OR (n.status = 'pending' AND n.attempt_count > 0)))`,
        { newest },
      )
      .orderBy('d.id', 'DESC')
      .getMany();
  }

  // Operational events (worker): see delivery/webhook-operational-events.service.ts.

  /**
   * The subscription is delivering again: clears `dark_since` (set when the engine disabled it) and
   * returns what it was, or undefined when it was not dark (any more: one caller wins).
   */
  async clearDark(
    manager: EntityManager,
    accountId: string,
    subscriptionId: string,
  ): Promise<{ url: string; darkSince: Date } | undefined> {
    // A top-level UPDATE: the driver answers [rows, affected].
    const [[row]]: [Array<{ url: string; dark_since: Date }>, number] = await manager.query(
      `WITH was AS (
         SELECT id, dark_since FROM webhook_subscriptions WHERE id = $1 AND account_id = $2 AND dark_since IS NOT NULL FOR UPDATE
       )
       UPDATE webhook_subscriptions s SET dark_since = NULL FROM was WHERE s.id = was.id
       RETURNING s.url, was.dark_since`,
      [subscriptionId, accountId],
    );
    return row ? { url: row.url, darkSince: row.dark_since } : undefined;
  }

  /** The subscription's latest permanently failed deliveries (non-test), newest first, with their last attempt. */
  async lastFailures(
    manager: EntityManager,
    accountId: string,
    subscriptionId: string,
    limit: number,
  ): Promise<Array<{ id: string; eventId: string | null; eventName: string; attempt: DeliveryAttempt | null }>> {
    const rows = await manager.query(
      `SELECT id, event_id, event_name, attempts -> -1 AS attempt FROM webhook_deliveries
        WHERE account_id = $1 AND subscription_id = $2 AND status = 'failed_permanent' AND NOT test
        ORDER BY id DESC LIMIT $3`,
      [accountId, subscriptionId, limit],
    );
    return rows.map((r: Record<string, unknown>) => ({
      id: r.id as string,
      eventId: r.event_id as string | null,
      eventName: r.event_name as string,
      attempt: (r.attempt as DeliveryAttempt | null) ?? null,
    }));
  }

  /** Drops replaced secrets (and v1a keys) whose 24-hour overlap has ended (they sign nothing any more); returns how many. */
  async clearExpiredPreviousSecrets(): Promise<number> {
    const result = await this.subscriptions
      .createQueryBuilder()
      .update()
      .set({ previousSecret: null, previousSecretExpiresAt: null, previousSigningKey: null })
      .where('previous_secret IS NOT NULL AND previous_secret_expires_at <= now()')
      .execute();
    return result.affected ?? 0;
  }

  /**
   * Subscriptions (any account) with a secret or v1a key not sealed with the key `keyId` (legacy
   * plaintext, or an older key), in id order after `afterId`.
   */
  async withSecretsNotSealedBy(keyId: string, afterId: string, limit: number): Promise<StoredSecrets[]> {
    const prefix = `v1.${keyId}.`;
    const rows: Array<{
      id: string;
      signing_secret: string;
      previous_secret: string | null;
      signing_key: string | null;
      previous_signing_key: string | null;
    }> = await this.subscriptions.query(
      `SELECT id, signing_secret, previous_secret, signing_key, previous_signing_key FROM webhook_subscriptions
        WHERE id > $2 AND (NOT starts_with(signing_secret, $1) OR NOT starts_with(previous_secret, $1)
                           OR NOT starts_with(signing_key, $1) OR NOT starts_with(previous_signing_key, $1))
        ORDER BY id LIMIT $3`,
      [prefix, afterId, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      signingSecret: r.signing_secret,
      previousSecret: r.previous_secret,
      signingKey: r.signing_key,
      previousSigningKey: r.previous_signing_key,
    }));
  }

  /**
   * Stores resealed secrets, each only while the row still holds the values they were made from (a
   * rotation in between wins); returns how many rows changed.
   */
  async replaceSecrets(changes: Array<{ was: StoredSecrets; now: StoredSecrets }>): Promise<number> {
    if (changes.length === 0) return 0;
    const rows = await this.subscriptions.query(
      `WITH changed AS (
         UPDATE webhook_subscriptions s
            SET signing_secret = c.signing_secret, previous_secret = c.previous_secret,
                signing_key = c.signing_key, previous_signing_key = c.previous_signing_key
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
                AS c(id, was_signing, was_previous, signing_secret, previous_secret,
                     was_key, was_previous_key, signing_key, previous_signing_key)
          WHERE s.id = c.id AND s.signing_secret = c.was_signing AND s.previous_secret IS NOT DISTINCT FROM c.was_previous
            AND s.signing_key IS NOT DISTINCT FROM c.was_key AND s.previous_signing_key IS NOT DISTINCT FROM c.was_previous_key
         RETURNING s.id
       )
       SELECT count(*)::int AS changed FROM changed`,
      [
        changes.map((c) => c.was.id),
        changes.map((c) => c.was.signingSecret),
        changes.map((c) => c.was.previousSecret),
        changes.map((c) => c.now.signingSecret),
        changes.map((c) => c.now.previousSecret),
        changes.map((c) => c.was.signingKey),
        changes.map((c) => c.was.previousSigningKey),
        changes.map((c) => c.now.signingKey),
        changes.map((c) => c.now.previousSigningKey),
      ],
    );
    return rows[0].changed;
  }
}

/** A subscription's stored (sealed) secrets and v1a keys. */
export interface StoredSecrets {
  id: string;
  signingSecret: string;
  previousSecret: string | null;
  signingKey: string | null;
  previousSigningKey: string | null;
}
