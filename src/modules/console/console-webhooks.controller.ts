import { Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequestContext } from '../../platform/context/request-context';
import { DomainError } from '../../platform/errors/domain-error';
import { validateStrictly } from '../../platform/http/strict-validation.pipe';
import { Public } from '../../platform/http/public.decorator';
import { STATUS_BY_KIND } from '../../platform/http/problem';
import { EVENT_NAMES } from '../events/event-catalogue';
import { ReplayWebhookDto } from '../webhooks/replay/dto/replay-webhook.dto';
import { WebhookReplaysService } from '../webhooks/replay/webhook-replays.service';
import { CreateWebhookDto } from '../webhooks/subscriptions/dto/create-webhook.dto';
import { TestWebhookDto } from '../webhooks/subscriptions/dto/test-webhook.dto';
import { UpdateWebhookDto } from '../webhooks/subscriptions/dto/update-webhook.dto';
import { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { ConsoleErrorFilter } from './console-error.filter';
import { sendPage } from './console-response';
import { Caller, ConsoleCaller, ConsoleSessionGuard, RequiresApiAccess } from './console-session.guard';
import { parseFilterList } from './console.rules';
import { Notice } from './views/layout';
import { replayPage, secretShownPage, SubscriptionForm, subscriptionPage, webhooksPage } from './views/webhooks.view';

const DELIVERIES_PER_PAGE = 20;

const DONE: Record<string, Notice> = {
  saved: { kind: 'ok', text: 'Changes saved.' },
  enabled: { kind: 'ok', text: 'Enabled: deliveries resume, the failure count starts again.' },
  disabled: { kind: 'ok', text: 'Disabled: no deliveries until it is enabled again.' },
  tested: { kind: 'ok', text: 'Test event queued: it appears in the delivery log below within seconds.' },
  retried: { kind: 'ok', text: 'Retry queued: the next attempt goes now.' },
};

/** A datetime-local value (no zone; the form says UTC) as the API's ISO 8601 instant; anything else as typed, for the DTO to refuse. */
function utcInstant(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value.length === 16 ? `${value}:00` : value}Z` : value;
}

/**
 * The webhook portal. Every action goes through the webhooks module's services with the REST routes'
 * DTOs (validateStrictly), so the same rules apply: URL policy, 409 on a duplicate URL, filters, limits.
 */
@ApiExcludeController()
@Public()
@UseGuards(ConsoleSessionGuard)
@RequiresApiAccess('Webhooks are not available')
@UseFilters(ConsoleErrorFilter)
@Controller('console/webhooks')
export class ConsoleWebhooksController {
  constructor(
    private readonly subscriptions: WebhookSubscriptionsService,
    private readonly replays: WebhookReplaysService,
  ) {}

  @Get()
  async list(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const page = await this.subscriptions.list(caller.session.accountId);
    sendPage(res, 200, webhooksPage(caller.frame, page.data));
  }

  /** Creates a subscription and shows its signing secret, once, on this response. */
  @Post()
  async create(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const form: SubscriptionForm = {
      url: caller.field('url'),
      eventFilters: caller.field('eventFilters'),
      maxRetries: caller.field('maxRetries'),
    };
    try {
      const input = await validateStrictly(
        CreateWebhookDto,
        {
          url: form.url ?? '',
          eventFilters: parseFilterList(form.eventFilters ?? ''),
          ...(form.maxRetries ? { maxRetries: Number(form.maxRetries) } : {}),
        },
        'body',
      );
      const created = await this.subscriptions.create(this.ctx(caller), input);
      sendPage(
        res,
        201,
        secretShownPage(
          caller.frame,
          created.id,
          'Subscription added',
          created.signingSecret,
          'Your endpoint verifies each delivery with it (Standard Webhooks signature).',
        ),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const page = await this.subscriptions.list(caller.session.accountId);
      sendPage(res, statusOf(error), webhooksPage(caller.frame, page.data, form, refusal(error)));
    }
  }

  @Get(':webhookId')
  async show(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, await this.subscriptionView(caller, webhookId, caller.query('cursor'), {}, caller.query('done')));
  }

  /** Edit: url and filters (PATCH's rules: URL policy, 409 on another subscription's URL, filters replace). */
  @Post(':webhookId')
  async update(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const form: SubscriptionForm = { url: caller.field('url'), eventFilters: caller.field('eventFilters') };
    try {
      const input = await validateStrictly(
        UpdateWebhookDto,
        { url: form.url ?? '', eventFilters: parseFilterList(form.eventFilters ?? '') },
        'body',
      );
      await this.subscriptions.update(this.ctx(caller), webhookId, input);
      res.redirect(303, `/console/webhooks/${webhookId}?done=saved`);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind === 'not_found') throw error;
      sendPage(res, statusOf(error), await this.subscriptionView(caller, webhookId, undefined, form, undefined, refusal(error)));
    }
  }

  @Post(':webhookId/enabled')
  async setEnabled(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const enabled = caller.field('enabled') === 'true';
    await this.subscriptions.update(this.ctx(caller), webhookId, { enabled });
    res.redirect(303, `/console/webhooks/${webhookId}?done=${enabled ? 'enabled' : 'disabled'}`);
  }

  /** A new signing secret, shown once on this response; the old one keeps signing for 24 hours. */
  @Post(':webhookId/rotate')
  async rotate(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const rotated = await this.subscriptions.rotateSecret(caller.session.accountId, webhookId);
    sendPage(
      res,
      200,
      secretShownPage(
        caller.frame,
        webhookId,
        'Signing secret rotated',
        rotated.signingSecret,
        `Until ${rotated.previousSecretExpiresAt} deliveries carry signatures with both the new and the previous secret; then only the new one.`,
      ),
    );
  }

  @Post(':webhookId/test')
  async test(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response) {
    const input = await validateStrictly(TestWebhookDto, { eventName: caller.field('eventName') ?? '' }, 'body');
    await this.subscriptions.sendTest(this.ctx(caller), webhookId, input.eventName);
    res.redirect(303, `/console/webhooks/${webhookId}?done=tested`);
  }

  @Post(':webhookId/deliveries/:deliveryId/retry')
  async retry(
    @Caller() caller: ConsoleCaller,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
    @Res() res: Response,
  ): Promise<void> {
    await this.subscriptions.retryDelivery(caller.session.accountId, webhookId, deliveryId);
    res.redirect(303, `/console/webhooks/${webhookId}?done=retried`);
  }

  @Post(':webhookId/replay')
  async replay(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response) {
    const until = utcInstant(caller.field('until'));
    const input = await validateStrictly(
      ReplayWebhookDto,
      {
        since: utcInstant(caller.field('since')) ?? '',
        ...(until ? { until } : {}),
        onlyFailed: caller.field('onlyFailed') === 'true',
      },
      'body',
    );
    const started = await this.replays.start(caller.session.accountId, webhookId, input);
    if ('dryRun' in started) throw new Error('a console replay is never a dry run');
    res.redirect(303, `/console/webhooks/${webhookId}/replays/${started.id}`);
  }

  @Get(':webhookId/replays/:replayId')
  async replayProgress(
    @Caller() caller: ConsoleCaller,
    @Param('webhookId') webhookId: string,
    @Param('replayId') replayId: string,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, 200, replayPage(caller.frame, await this.replays.get(caller.session.accountId, webhookId, replayId)));
  }

  private async subscriptionView(
    caller: ConsoleCaller,
    webhookId: string,
    cursor: string | undefined,
    form: SubscriptionForm,
    done?: string,
    flash?: Notice,
  ) {
    const accountId = caller.session.accountId;
    const subscription = (await this.subscriptions.list(accountId)).data.find((s) => s.id === webhookId);
    // The service's own 404 (another account's subscription is unknown here too).
    const log = await this.subscriptions.deliveries(accountId, webhookId, cursor, DELIVERIES_PER_PAGE);
    return subscriptionPage(
      caller.frame,
      { subscription: subscription!, deliveries: log.data, nextCursor: log.nextCursor, eventNames: EVENT_NAMES, form },
      flash ?? (done === undefined ? undefined : DONE[done]),
    );
  }

  private ctx(caller: ConsoleCaller): RequestContext {
    return { accountId: caller.session.accountId, requestId: caller.requestId, clientRequestId: `req_${caller.requestId}` };
  }
}

function statusOf(error: DomainError): number {
  return STATUS_BY_KIND[error.kind];
}

/** An action's refusal in words: the service's message, each field's, and for a duplicate URL the subscription that has it. */
function refusal(error: DomainError): Notice {
  const fields = (error.extras.errors as Array<{ detail: string }> | undefined) ?? [];
  const existing = typeof error.extras.existingId === 'string' ? error.extras.existingId : undefined;
  return {
    kind: 'error',
    text: [
      error.message,
      ...fields.filter((f) => f.detail !== error.message).map((f) => ` ${f.detail}.`),
      existing ? ` It belongs to subscription ${existing}.` : '',
    ],
  };
}
