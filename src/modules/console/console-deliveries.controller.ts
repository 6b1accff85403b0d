import { Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { validateStrictly } from '../../platform/http/strict-validation.pipe';
import { Public } from '../../platform/http/public.decorator';
import { ReplayWebhookDto } from '../webhooks/replay/dto/replay-webhook.dto';
import { WebhookReplaysService } from '../webhooks/replay/webhook-replays.service';
import { TestWebhookDto } from '../webhooks/subscriptions/dto/test-webhook.dto';
import { WebhookDeliveryRequestsService } from '../webhooks/subscriptions/webhook-delivery-requests.service';
import { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { ConsoleErrorFilter } from './console-error.filter';
import { ConsoleFormsService } from './console-forms.service';
import { sendPage } from './console-response';
import { Caller, ConsoleCaller, ConsoleSessionGuard, RequiresApiAccess } from './console-session.guard';
import { consoleContext } from './console-webhook-answers';
import { deliveryPage } from './views/delivery.view';
import { Notice } from './views/layout';
import { replayPage } from './views/replay.view';

const RETRIED: Notice = { kind: 'ok', text: 'Retry queued: the next attempt goes now.' };

/** A datetime-local value (no zone; the form says UTC) as the API's ISO 8601 instant; anything else as typed, for the DTO to refuse. */
function utcInstant(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value.length === 16 ? `${value}:00` : value}Z` : value;
}

/**
 * What a subscription sends: test events, one delivery with what each attempt sent, retrying it, and
 * replays of a window. Once per form, 303 to the result, like every console action.
 */
@ApiExcludeController()
@Public()
@UseGuards(ConsoleSessionGuard)
@RequiresApiAccess('Webhooks are not available')
@UseFilters(ConsoleErrorFilter)
@Controller('console/webhooks/:webhookId')
export class ConsoleDeliveriesController {
  constructor(
    private readonly subscriptions: WebhookSubscriptionsService,
    private readonly requests: WebhookDeliveryRequestsService,
    private readonly replays: WebhookReplaysService,
    private readonly forms: ConsoleFormsService,
  ) {}

  @Post('test')
  async test(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      const input = await validateStrictly(TestWebhookDto, { eventName: caller.field('eventName') ?? '' }, 'body');
      await this.subscriptions.sendTest(consoleContext(caller), webhookId, input.eventName);
      return `/console/webhooks/${webhookId}?done=tested`;
    });
    res.redirect(303, location);
  }

  /** One delivery: each attempt with its request headers and payload (rebuilt as sent) and its answer. */
  @Get('deliveries/:deliveryId')
  async delivery(
    @Caller() caller: ConsoleCaller,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
    @Res() res: Response,
  ): Promise<void> {
    const data = await this.requests.withRequests(caller.accountId, webhookId, deliveryId);
    sendPage(res, 200, deliveryPage(caller.frame, webhookId, data, caller.query('done') === 'retried' ? RETRIED : undefined));
  }

  @Post('deliveries/:deliveryId/retry')
  async retry(
    @Caller() caller: ConsoleCaller,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
    @Res() res: Response,
  ): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      await this.subscriptions.retryDelivery(caller.accountId, webhookId, deliveryId);
      return `/console/webhooks/${webhookId}/deliveries/${deliveryId}?done=retried`;
    });
    res.redirect(303, location);
  }

  @Post('replay')
  async replay(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      const until = utcInstant(caller.field('until'));
      const input = await validateStrictly(
        ReplayWebhookDto,
        { since: utcInstant(caller.field('since')) ?? '', ...(until ? { until } : {}), onlyFailed: caller.field('onlyFailed') === 'true' },
        'body',
      );
      const started = await this.replays.start(caller.accountId, webhookId, input);
      if ('dryRun' in started) throw new Error('a console replay is never a dry run');
      return `/console/webhooks/${webhookId}/replays/${started.id}`;
    });
    res.redirect(303, location);
  }

  @Get('replays/:replayId')
  async replayProgress(
    @Caller() caller: ConsoleCaller,
    @Param('webhookId') webhookId: string,
    @Param('replayId') replayId: string,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, 200, replayPage(caller.frame, await this.replays.get(caller.accountId, webhookId, replayId)));
  }
}
