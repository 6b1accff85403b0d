import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThan, Repository } from 'typeorm';
import { WebhookDeliveryEntity } from '../webhook-delivery.entity';
import { WebhookSubscriptionEntity } from '../webhook-subscription.entity';

/** The columns PATCH may change, plus what enabling resets. */
export interface SubscriptionChanges {
  url?: string;
  eventFilters?: string[];
  enabled?: boolean;
  disabledReason?: null;
  consecutiveFailures?: 0;
}

/** The UNIQUE (account_id, url) constraint: one subscription per URL within an account. */
export const URL_UNIQUE_CONSTRAINT = 'webhook_subscriptions_account_id_url_key';

/**
 * Subscription and delivery-log queries of the subscriptions API; every one is scoped by account.
 * Writes to webhook_deliveries (test deliveries too) live in WebhookDeliveriesRepository.
 */
@Injectable()
export class WebhookSubscriptionsRepository {
  constructor(
    @InjectRepository(WebhookSubscriptionEntity) private readonly subscriptions: Repository<WebhookSubscriptionEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
  ) {}

  /** All of an account's subscriptions in creation order (the list is unpaginated). */
  listByAccount(accountId: string): Promise<WebhookSubscriptionEntity[]> {
    return this.subscriptions.find({ where: { accountId }, order: { id: 'ASC' } });
  }

  async find(accountId: string, id: string, manager?: EntityManager, lock = false): Promise<WebhookSubscriptionEntity | null> {
    const repo = manager ? manager.getRepository(WebhookSubscriptionEntity) : this.subscriptions;
    return repo.findOne({ where: { accountId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  async findIdByUrl(accountId: string, url: string): Promise<string | undefined> {
    const row = await this.subscriptions.findOne({ where: { accountId, url }, select: { id: true } });
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
   * in one statement. A previous secret still within its 24 hours is dropped: only two secrets ever sign.
   */
  async rotateSecret(accountId: string, id: string, secret: string, previousExpiresAt: Date): Promise<boolean> {
    const result = await this.subscriptions
      .createQueryBuilder()
      .update()
      .set({
        previousSecret: () => 'signing_secret',
        signingSecret: secret,
        previousSecretExpiresAt: previousExpiresAt,
        updatedAt: () => 'now()',
      })
      .where('account_id = :accountId AND id = :id', { accountId, id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Deletes the subscription; its deliveries go with it (ON DELETE CASCADE). */
  async delete(accountId: string, id: string): Promise<boolean> {
    const result = await this.subscriptions.delete({ accountId, id });
    return (result.affected ?? 0) > 0;
  }

  async deliveryExists(accountId: string, subscriptionId: string, deliveryId: string): Promise<boolean> {
    return this.deliveries.exists({ where: { accountId, subscriptionId, id: deliveryId } });
  }

  /** Newest first, keyset on id (index webhook_deliveries_log_idx): ids sort by creation. */
  listDeliveries(accountId: string, subscriptionId: string, beforeId: string | undefined, take: number): Promise<WebhookDeliveryEntity[]> {
    return this.deliveries.find({
      where: { accountId, subscriptionId, ...(beforeId ? { id: LessThan(beforeId) } : {}) },
      order: { id: 'DESC' },
      take,
    });
  }
}
