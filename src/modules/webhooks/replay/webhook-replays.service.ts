import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isForeignKeyViolation, isUniqueViolation } from '../../../platform/database/pg-errors';
import { parseDateTime } from '../../../platform/http/validators';
import { isIdOf, newId } from '../../../platform/ids/ids';
import { distinctEventFilters } from '../subscriptions/webhook-subscription.rules';
import { WebhookQueue } from '../webhook-queue.service';
import { RETENTION_DAYS } from '../webhook-retention.rules';
import { REPLAY_SUBSCRIPTION_CONSTRAINT, RUNNING_REPLAY_CONSTRAINT, WebhookReplaysRepository } from '../webhook-replays.repository';
import { WebhookSubscriptionsRepository } from '../webhook-subscriptions.repository';
import {
  ReplayRunningError,
  ReplayWindowError,
  WebhookDisabledForDeliveryError,
  WebhookNotFoundError,
  WebhookReplayNotFoundError,
} from '../webhooks.errors';
import { ReplayWebhookDto } from './dto/replay-webhook.dto';
import { ReplayDryRunResponse, toWebhookReplayResponse, WebhookReplayResponse } from './webhook-replay.response';
import { replayWindow } from './webhook-replay.rules';
import { WebhookReplaySelector } from './webhook-replay-selector';
import { WEBHOOK_IDS } from '../webhooks.ids';

/**
 * Replays (API side, issue 13): starts one (counted now, run by the worker's replay job), answers a
 * dryRun with the count only, and shows a replay's progress.
 */
@Injectable()
export class WebhookReplaysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly replays: WebhookReplaysRepository,
    private readonly selector: WebhookReplaySelector,
    private readonly queue: WebhookQueue,
  ) {}

  async start(accountId: string, subscriptionId: string, input: ReplayWebhookDto): Promise<WebhookReplayResponse | ReplayDryRunResponse> {
    const subscription = await this.subscriptions.find(accountId, subscriptionId);
    if (!subscription) throw new WebhookNotFoundError(subscriptionId);
    const window = replayWindow(
      parseDateTime(input.since)!,
      input.until ? parseDateTime(input.until) : undefined,
      new Date(),
      RETENTION_DAYS,
    );
    if ('problem' in window) {
      throw window.problem === 'sinceBeforeRetention'
        ? new ReplayWindowError('#/since', `since is older than the ${RETENTION_DAYS}-day retention of the event log`)
        : new ReplayWindowError('#/until', 'until must be after since (and since before now)');
    }
    const scope = {
      accountId,
      subscriptionId,
      ...window,
      eventFilters: input.eventFilters ? distinctEventFilters(input.eventFilters) : subscription.eventFilters,
      onlyFailed: input.onlyFailed ?? false,
    };
    if (input.dryRun) return { dryRun: true, total: await this.selector.count(this.dataSource.manager, scope) };

    if (!subscription.enabled) throw new WebhookDisabledForDeliveryError(subscriptionId, 'replay');
    const running = await this.replays.runningOf(accountId, subscriptionId);
    if (running) throw new ReplayRunningError(running);
    const total = await this.selector.count(this.dataSource.manager, scope);
    const id = newId(WEBHOOK_IDS.replay);
    try {
      await this.replays.insert({ id, status: 'running', ...scope, total, done: 0, skipped: 0 });
    } catch (error) {
      // The unique index decides between concurrent starts.
      if (isUniqueViolation(error, RUNNING_REPLAY_CONSTRAINT))
        throw new ReplayRunningError(await this.replays.runningOf(accountId, subscriptionId));
      // The subscription was deleted since it was found: its 404, as a moment later.
      if (isForeignKeyViolation(error, REPLAY_SUBSCRIPTION_CONSTRAINT)) throw new WebhookNotFoundError(subscriptionId);
      throw error;
    }
    await this.queue.enqueueReplays([id]);
    return this.get(accountId, subscriptionId, id);
  }

  async get(accountId: string, subscriptionId: string, replayId: string): Promise<WebhookReplayResponse> {
    if (!(await this.subscriptions.find(accountId, subscriptionId))) throw new WebhookNotFoundError(subscriptionId);
    const row = isIdOf(WEBHOOK_IDS.replay, replayId) ? await this.replays.find(accountId, subscriptionId, replayId) : null;
    if (!row) throw new WebhookReplayNotFoundError(replayId);
    return toWebhookReplayResponse(row, await this.replays.replayOutcomes(accountId, replayId));
  }
}
