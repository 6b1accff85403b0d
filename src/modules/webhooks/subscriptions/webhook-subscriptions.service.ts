import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/context/request-context';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { isIdOf, newId } from '../../../platform/ids/ids';
import { OutboundUrlPolicy } from '../../../platform/net/outbound-url-policy';
import { URL_MAX_LENGTH, UrlPolicyError, urlTooLongMessage } from '../../../platform/net/url-policy.rules';
import { Page, toPage, unpaginated } from '../../../platform/pagination/page';
import { SecretBox } from '../../../platform/secrets/secret-box';
import {
  RetriedDeliveryResponse,
  TestDeliveryResponse,
  toWebhookDeliveryResponse,
  WebhookDeliveryResponse,
} from './webhook-delivery.response';
import { DELIVERY_SUBSCRIPTION_CONSTRAINT, WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import { WebhookQueue } from '../webhook-queue.service';
import { WebhookSubscriptionEntity } from '../webhook-subscription.entity';
import {
  CreatedWebhookSubscriptionResponse,
  RotatedSecretResponse,
  toWebhookSubscriptionResponse,
  WebhookSubscriptionResponse,
} from './webhook-subscription.response';
import {
  DEFAULT_SIGNATURE_SCHEMES,
  distinctEventFilters,
  newSigningSecret,
  normaliseWebhookUrl,
  previousSecretExpiry,
  SignatureScheme,
  SUBSCRIPTION_LIMITS,
  wantsV1a,
} from './webhook-subscription.rules';
import { newSigningKeyPair, signingKeyContext } from '../webhook-signer.rules';
import { isForeignKeyViolation, isUniqueViolation } from '../../../platform/database/pg-errors';
import {
  DeliveryFilter,
  SubscriptionChanges,
  URL_UNIQUE_CONSTRAINT,
  WebhookSubscriptionsRepository,
} from '../webhook-subscriptions.repository';
import {
  DuplicateWebhookUrlError,
  UnknownDeliveryCursorError,
  WebhookDeliveryNotFoundError,
  WebhookDisabledForDeliveryError,
  DeliveryInFlightError,
  WebhookDisabledError,
  WebhookNotFoundError,
  WebhookUrlError,
} from '../webhooks.errors';
import { WEBHOOK_IDS } from '../webhooks.ids';
import { brokerPasswordContext, isBrokerUrl, RabbitmqOptions } from '../rabbitmq-destination.rules';
import { checkedDestination } from './rabbitmq-subscriptions';
import { ReceiverAuthInput, ReceiverAuthSettings } from './receiver-auth-settings';

export interface CreateWebhookInput extends ReceiverAuthInput {
  url: string;
  eventFilters: string[];
  maxRetries?: number;
  signatureSchemes?: SignatureScheme[];
  /** Pacing (an extension): null or absent is unpaced. */
  rateLimitPerSecond?: number | null;
  /** Ordered endpoint (an extension): absent is false. */
  ordered?: boolean;
  /** Trace context to the receiver (an extension): off when absent. */
  traceContext?: boolean;
  /** A RabbitMQ destination's exchange and routing key (issue 43): with an amqp(s) url only. */
  rabbitmq?: RabbitmqOptions;
}

export interface UpdateWebhookInput extends ReceiverAuthInput {
  url?: string;
  eventFilters?: string[];
  enabled?: boolean;
  signatureSchemes?: SignatureScheme[];
  /** null switches pacing off. */
  rateLimitPerSecond?: number | null;
  ordered?: boolean;
  traceContext?: boolean;
  /** null: none (a move to an http(s) url). */
  rabbitmq?: RabbitmqOptions | null;
}

/**
 * The subscriptions API (spec 4.8). Configuration changes publish no events: they are not business
 * events of the account (docs/events.md). Delivery itself is the engine's (webhook-delivery.service).
 */
@Injectable()
export class WebhookSubscriptionsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: WebhookSubscriptionsRepository,
    private readonly deliveryRows: WebhookDeliveriesRepository,
    private readonly urlPolicy: OutboundUrlPolicy,
    private readonly queue: WebhookQueue,
    private readonly secrets: SecretBox,
    private readonly receiverAuth: ReceiverAuthSettings,
  ) {}

  async create(ctx: RequestContext, input: CreateWebhookInput): Promise<CreatedWebhookSubscriptionResponse> {
    // DNS runs before the transaction opens: a slow resolver must not hold a connection.
    const { url, rabbitmq, password } = await checkedDestination(this.urlPolicy, (raw) => this.checkedUrl(raw), input);
    const id = newId(WEBHOOK_IDS.subscription);
    const receiverAuth = this.receiverAuth.apply(null, await this.receiverAuth.sealed(id, input));
    const signingSecret = newSigningSecret();
    const row = Object.assign(new WebhookSubscriptionEntity(), {
      id,
      accountId: ctx.accountId,
      kind: 'platform',
      url,
      eventFilters: distinctEventFilters(input.eventFilters),
      enabled: true,
      maxRetries: input.maxRetries ?? SUBSCRIPTION_LIMITS.maxRetriesDefault,
      rateLimitPerSecond: input.rateLimitPerSecond ?? null,
      ordered: input.ordered ?? false,
      traceContext: input.traceContext ?? false,
      rabbitmq,
      brokerPassword: password === null ? null : this.secrets.seal(password, brokerPasswordContext(id)),
      receiverAuth,
      signingSecret: this.secrets.seal(signingSecret, id),
      previousSecret: null,
      previousSecretExpiresAt: null,
      ...this.v1aKeys(id, wantsV1a(input.signatureSchemes ?? DEFAULT_SIGNATURE_SCHEMES)),
      disabledReason: null,
      consecutiveFailures: 0,
    });
    const created = await this.withDuplicateUrlCheck(ctx.accountId, { url, rabbitmq }, () =>
      this.uow.run(ctx, async (tx) => {
        await this.repository.insert(tx.manager, row);
        return (await this.repository.find(ctx.accountId, row.id, tx.manager))!;
      }),
    );
    return { ...toWebhookSubscriptionResponse(created), signingSecret };
  }

  async list(accountId: string): Promise<Page<WebhookSubscriptionResponse>> {
    const rows = await this.repository.listByAccount(accountId);
    return unpaginated(rows.map(toWebhookSubscriptionResponse));
  }

  async update(ctx: RequestContext, id: string, input: UpdateWebhookInput): Promise<WebhookSubscriptionResponse> {
    const existing = await this.repository.find(ctx.accountId, id);
    if (!existing) throw new WebhookNotFoundError(id);
    const changes: SubscriptionChanges = {};
    if (input.url === undefined && input.rabbitmq === undefined && isBrokerUrl(existing.url)) {
      // A broker destination takes no receiver authentication (issue 42 is for HTTP receivers): checked, nothing changes.
      await checkedDestination(this.urlPolicy, (raw) => this.checkedUrl(raw), input, existing);
    }
    if (input.url !== undefined || input.rabbitmq !== undefined) {
      // The url and rabbitmq agree after the change (a broker url's password is sealed apart; issue 43).
      const destination = await checkedDestination(this.urlPolicy, (raw) => this.checkedUrl(raw), input, existing);
      Object.assign(changes, { url: destination.url, rabbitmq: destination.rabbitmq });
      if (destination.passwordChanged) {
        changes.brokerPassword = destination.password === null ? null : this.secrets.seal(destination.password, brokerPasswordContext(id));
      }
    }
    if (input.eventFilters !== undefined) changes.eventFilters = distinctEventFilters(input.eventFilters);
    if (input.enabled !== undefined) changes.enabled = input.enabled;
    if (input.rateLimitPerSecond !== undefined) changes.rateLimitPerSecond = input.rateLimitPerSecond;
    if (input.ordered !== undefined) changes.ordered = input.ordered;
    if (input.traceContext !== undefined) changes.traceContext = input.traceContext;
    const authChanges = await this.receiverAuth.sealed(id, input);
    // Spec 3.4: enabling clears the reason and restarts the count of consecutive failures.
    // (And closes any back-pressure window: a fresh start.)
    if (input.enabled === true) Object.assign(changes, { disabledReason: null, consecutiveFailures: 0, backpressureUntil: null });

    const updated = await this.withDuplicateUrlCheck(
      ctx.accountId,
      changes.url === undefined ? undefined : { url: changes.url, rabbitmq: changes.rabbitmq ?? null },
      () =>
        this.uow.run(ctx, async (tx) => {
          // Row lock: a concurrent DELETE either happened (404) or waits for this commit.
          const current = await this.repository.find(ctx.accountId, id, tx.manager, true);
          if (!current) throw new WebhookNotFoundError(id);
          if (Object.keys(authChanges).length > 0) changes.receiverAuth = this.receiverAuth.apply(current.receiverAuth, authChanges);
          // v1a switched on makes a new key pair; switched off drops the keys (previous one included); unchanged keeps them.
          if (input.signatureSchemes !== undefined && wantsV1a(input.signatureSchemes) !== (current.signingKey !== null)) {
            Object.assign(changes, this.v1aKeys(id, wantsV1a(input.signatureSchemes)));
          }
          await this.repository.update(tx.manager, ctx.accountId, id, changes);
          if (input.ordered !== undefined && input.ordered !== current.ordered) {
            // Under the row lock: the deliveries not attempted yet join (or leave) the order; a wake-up sends them on.
            const fromId = await this.deliveryRows.setOrdered(tx.manager, ctx.accountId, id, input.ordered);
            const wake = { accountId: ctx.accountId, subscriptionId: id, ordered: input.ordered };
            if (fromId) tx.afterCommit(() => this.queue.enqueueBatches([{ ...wake, fromId }]));
          }
          return (await this.repository.find(ctx.accountId, id, tx.manager))!;
        }),
    );
    return toWebhookSubscriptionResponse(updated);
  }

  async remove(ctx: RequestContext, id: string): Promise<void> {
    // In the unit of work: the cascade can deadlock with a replay inserting this subscription's deliveries
    // (each locks what the other wants), and the unit of work runs a deadlock's victim again.
    const deleted = await this.uow.run(ctx, (tx) => this.repository.delete(tx.manager, ctx.accountId, id));
    if (!deleted) throw new WebhookNotFoundError(id);
  }

  async rotateSecret(accountId: string, id: string): Promise<RotatedSecretResponse> {
    const signingSecret = newSigningSecret();
    const previousSecretExpiresAt = previousSecretExpiry(new Date());
    const sealed = this.secrets.seal(signingSecret, id);
    // A key pair is made whether or not the subscription has v1a on (the statement decides): it costs microseconds.
    const rotated = await this.repository.rotateSecret(accountId, id, sealed, this.newSealedKeyPair(id), previousSecretExpiresAt);
    if (!rotated) throw new WebhookNotFoundError(id);
    return {
      id,
      signingSecret,
      previousSecretExpiresAt: previousSecretExpiresAt.toISOString(),
      ordered: rotated.ordered,
      ...(rotated.publicKey === null ? {} : { publicKey: rotated.publicKey }),
    };
  }

  /** The v1a columns of a subscription: a new key pair (the private key sealed for `<id>:v1a`) when on, nulls when off. */
  private v1aKeys(id: string, on: boolean): { signingKey: string | null; previousSigningKey: null; publicKey: string | null } {
    if (!on) return { signingKey: null, previousSigningKey: null, publicKey: null };
    const { sealed, publicKey } = this.newSealedKeyPair(id);
    return { signingKey: sealed, previousSigningKey: null, publicKey };
  }

  private newSealedKeyPair(id: string): { sealed: string; publicKey: string } {
    const { privateKey, publicKey } = newSigningKeyPair();
    return { sealed: this.secrets.seal(privateKey, signingKeyContext(id)), publicKey };
  }

  /**
   * A synthetic delivery of `eventName` (spec 4.8 rule 7): a delivery row flagged test with its envelope in
   * test_payload (results empty: it exercises transport and signature, not event parsing). It never touches
   * the events table, so it never shows in the feed. Enqueued after commit; due at once for the sweep.
   * A disabled subscription gets nothing delivered (the engine's rule), so the test is refused up front.
   */
  async sendTest(ctx: RequestContext, id: string, eventName: string): Promise<TestDeliveryResponse> {
    const deliveryId = newId(WEBHOOK_IDS.delivery);
    try {
      await this.uow.run(ctx, async (tx) => {
        const subscription = await this.repository.find(ctx.accountId, id, tx.manager);
        if (!subscription) throw new WebhookNotFoundError(id);
        if (!subscription.enabled) throw new WebhookDisabledError(id);
        const now = new Date();
        await this.deliveryRows.insertTestDelivery(tx.manager, {
          id: deliveryId,
          accountId: ctx.accountId,
          subscriptionId: id,
          eventName,
          payload: {
            clientRequestId: ctx.clientRequestId,
            apiRequestId: ctx.requestId,
            targetAccountId: ctx.accountId,
            createdAt: now.toISOString(),
            eventName,
            results: [],
            test: true,
          },
          dueAt: now,
        });
        tx.afterCommit(() => this.queue.enqueueDelivery(deliveryId, { subscriptionId: id }));
      });
    } catch (error) {
      // The subscription was deleted (a concurrent DELETE) since it was found: its 404, as a moment later.
      if (isForeignKeyViolation(error, DELIVERY_SUBSCRIPTION_CONSTRAINT)) throw new WebhookNotFoundError(id);
      throw error;
    }
    return { deliveryId, status: 'pending' };
  }

  /**
   * The delivery log, newest first, optionally of one status and one event name (an extension); the cursor
   * is the last delivery id of the previous page.
   */
  async deliveries(
    accountId: string,
    id: string,
    query: { cursor?: string; limit: number } & DeliveryFilter,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const { cursor, limit, ...filter } = query;
    await this.mustExist(accountId, id);
    if (cursor !== undefined && !(isIdOf(WEBHOOK_IDS.delivery, cursor) && (await this.repository.deliveryExists(accountId, id, cursor)))) {
      throw new UnknownDeliveryCursorError();
    }
    const rows = await this.repository.listDeliveries(accountId, id, cursor, limit + 1, filter);
    return toPage(rows, limit, toWebhookDeliveryResponse, (row) => row.id);
  }

  /** One subscription of the account (another account's is a 404). */
  async get(accountId: string, id: string): Promise<WebhookSubscriptionResponse> {
    const row = await this.repository.find(accountId, id);
    if (!row) throw new WebhookNotFoundError(id);
    return toWebhookSubscriptionResponse(row);
  }

  /**
   * Every subscription (as listed) with its failing deliveries (failed for good, or failed and waiting for
   * a retry) among its `newest`, newest first: two queries whatever the number of subscriptions (MCP webhooks_health).
   */
  async health(
    accountId: string,
    newest: number,
  ): Promise<Array<{ subscription: WebhookSubscriptionResponse; recentFailures: WebhookDeliveryResponse[] }>> {
    const [subscriptions, failures] = await Promise.all([
      this.repository.listByAccount(accountId),
      this.repository.recentFailures(accountId, newest),
    ]);
    return subscriptions.map((row) => ({
      subscription: toWebhookSubscriptionResponse(row),
      recentFailures: failures.filter((failure) => failure.subscriptionId === row.id).map(toWebhookDeliveryResponse),
    }));
  }

  /** One row of the delivery log, with every attempt; another subscription's (or account's) delivery is a 404. */
  async delivery(accountId: string, id: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    await this.mustExist(accountId, id);
    const row = isIdOf(WEBHOOK_IDS.delivery, deliveryId) ? await this.repository.findDelivery(accountId, id, deliveryId) : null;
    if (!row) throw new WebhookDeliveryNotFoundError(deliveryId);
    return toWebhookDeliveryResponse(row);
  }

  /**
   * POST …/deliveries/{deliveryId}/retry (extension): the delivery's next attempt goes now. A finished
   * delivery starts a new round (same webhook-id, the next attempt number, a fresh retry budget); a
   * pending one waiting for its retry is brought forward. Refused while an attempt is in flight (409)
   * and for a disabled subscription (409, like a test delivery). A subscription deleted after the checks
   * takes its deliveries with it (cascade), so the guarded update finds no row: a 404, as before the checks.
   */
  async retryDelivery(accountId: string, id: string, deliveryId: string): Promise<RetriedDeliveryResponse> {
    const subscription = await this.repository.find(accountId, id);
    if (!subscription) throw new WebhookNotFoundError(id);
    const row = isIdOf(WEBHOOK_IDS.delivery, deliveryId) ? await this.repository.findDelivery(accountId, id, deliveryId) : null;
    if (!row) throw new WebhookDeliveryNotFoundError(deliveryId);
    if (!subscription.enabled) throw new WebhookDisabledForDeliveryError(id, 'retry');
    if (row.inFlightUntil !== null) throw new DeliveryInFlightError(deliveryId);
    if (!(await this.deliveryRows.reopenNow(row))) {
      // The row changed since it was read: gone (with its subscription, or by retention), or an attempt took it.
      await this.mustExist(accountId, id);
      if (!(await this.repository.findDelivery(accountId, id, deliveryId))) throw new WebhookDeliveryNotFoundError(deliveryId);
      throw new DeliveryInFlightError(deliveryId);
    }
    await this.queue.enqueueDeliveryNow(deliveryId, row.attemptCount, id);
    return { deliveryId, status: 'pending', attempt: row.attemptCount };
  }

  private async mustExist(accountId: string, id: string): Promise<void> {
    if (!(await this.repository.find(accountId, id))) throw new WebhookNotFoundError(id);
  }

  /** The URL rules of spec 4.8 rule 6 (shape, https, DNS); returns the stored, normalised form. The legacy webhook takes the same. */
  async checkedUrl(raw: string): Promise<string> {
    let url: string;
    try {
      url = normaliseWebhookUrl((await this.urlPolicy.check(raw, { requireHttps: true })).url);
    } catch (error) {
      if (error instanceof UrlPolicyError) throw WebhookUrlError.from(error);
      throw error;
    }
    // The DTO counts the url as sent; percent-encoding can make it several times longer, past what the
    // unique (account, url) index can hold.
    const max = URL_MAX_LENGTH;
    if (url.length > max) throw new WebhookUrlError('malformed', urlTooLongMessage(max));
    return url;
  }

  /** The unique (account_id, url) index decides races; the loser answers 409 naming the winner. */
  private async withDuplicateUrlCheck<T>(
    accountId: string,
    destination: { url: string; rabbitmq: RabbitmqOptions | null } | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (destination !== undefined && isUniqueViolation(error, URL_UNIQUE_CONSTRAINT)) {
        throw new DuplicateWebhookUrlError(await this.repository.findIdByUrl(accountId, destination.url, destination.rabbitmq));
      }
      throw error;
    }
  }
}
