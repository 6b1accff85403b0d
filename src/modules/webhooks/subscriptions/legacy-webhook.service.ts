import { Injectable } from '@nestjs/common';
import { isIdOf, newId } from '../../../platform/ids/ids';
import { Page, toPage } from '../../../platform/pagination/page';
import { WebhookSubscriptionsRepository } from '../webhook-subscriptions.repository';
import { LegacyWebhookNotFoundError, UnknownDeliveryCursorError } from '../webhooks.errors';
import { LegacyWebhookResponse, toLegacyWebhookResponse } from './legacy-webhook.response';
import { toWebhookDeliveryResponse, WebhookDeliveryResponse } from './webhook-delivery.response';
import { SUBSCRIPTION_LIMITS } from './webhook-subscription.rules';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import { WEBHOOK_IDS } from '../webhooks.ids';

/**
 * The account's legacy webhook (spec 9.6, docs/legacy.md), for the legacy module: a subscription of
 * kind `legacy`, at most one per account, subscribed to every event and delivered by the same engine
 * as Platform subscriptions (same envelope bytes, same retries) without a signature. It never shows in
 * /v1/webhooks; its deliveries are listed here.
 */
@Injectable()
export class LegacyWebhookService {
  constructor(
    private readonly repository: WebhookSubscriptionsRepository,
    private readonly subscriptions: WebhookSubscriptionsService,
  ) {}

  /** Sets the URL (the same URL rules as Platform subscriptions); re-enables a disabled legacy webhook. */
  async put(accountId: string, rawUrl: string): Promise<LegacyWebhookResponse> {
    const url = await this.subscriptions.checkedUrl(rawUrl);
    const row = await this.repository.upsertLegacy({
      id: newId(WEBHOOK_IDS.subscription),
      accountId,
      url,
      maxRetries: SUBSCRIPTION_LIMITS.maxRetriesDefault,
    });
    return toLegacyWebhookResponse(row);
  }

  async get(accountId: string): Promise<LegacyWebhookResponse> {
    const row = await this.repository.findLegacy(accountId);
    if (!row) throw new LegacyWebhookNotFoundError();
    return toLegacyWebhookResponse(row);
  }

  async remove(accountId: string): Promise<void> {
    if (!(await this.repository.deleteLegacy(accountId))) throw new LegacyWebhookNotFoundError();
  }

  /** The legacy webhook's delivery log, newest first, paged like a subscription's. */
  async deliveries(accountId: string, cursor: string | undefined, limit: number): Promise<Page<WebhookDeliveryResponse>> {
    const row = await this.repository.findLegacy(accountId);
    if (!row) throw new LegacyWebhookNotFoundError();
    if (
      cursor !== undefined &&
      !(isIdOf(WEBHOOK_IDS.delivery, cursor) && (await this.repository.deliveryExists(accountId, row.id, cursor)))
    ) {
      throw new UnknownDeliveryCursorError();
    }
    const rows = await this.repository.listDeliveries(accountId, row.id, cursor, limit + 1);
    return toPage(rows, limit, toWebhookDeliveryResponse, (delivery) => delivery.id);
  }
}
