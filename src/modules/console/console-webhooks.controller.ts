import { Controller, Get, Inject, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { Public } from '../../platform/http/public.decorator';
import { STATUS_BY_KIND } from '../../platform/http/problem';
import { DECLARATIONS, type Declarations } from '../../platform/modules/module-declaration';
import { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { ConsoleErrorFilter } from './console-error.filter';
import { ConsoleFormsService } from './console-forms.service';
import { sendPage } from './console-response';
import { Caller, ConsoleCaller, ConsoleSessionGuard, RequiresApiAccess } from './console-session.guard';
import { consoleContext, logFilterOf, logQueryOf, refusal } from './console-webhook-answers';
import { createInput, subscriptionForm, updateInput } from './console-webhook-forms';
import { Notice } from './views/layout';
import { secretGonePage, secretShownPage } from './views/secret.view';
import { deleteConfirmPage, settingsPage } from './views/subscription-settings.view';
import { subscriptionPage } from './views/subscription.view';
import { webhooksPage } from './views/webhooks.view';

const DELIVERIES_PER_PAGE = 20;

const DONE: Record<string, Notice> = {
  saved: { kind: 'ok', text: 'Changes saved.' },
  enabled: { kind: 'ok', text: 'Enabled: deliveries resume, the failure count starts again.' },
  disabled: { kind: 'ok', text: 'Disabled: no deliveries until it is enabled again.' },
  tested: { kind: 'ok', text: 'Test event queued: it appears in the delivery log below within seconds.' },
  deleted: { kind: 'ok', text: 'The subscription is deleted: nothing more is delivered to it.' },
};

/**
 * The webhook portal's subscriptions. Every action goes through the webhooks module's services with the
 * REST routes' DTOs (console-webhook-forms.ts), so the same rules apply: URL policy, 409 on a duplicate
 * URL, filters, limits. Every form answers 303 to its result, once per form (ConsoleFormsService.once).
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
    private readonly forms: ConsoleFormsService,
    @Inject(DECLARATIONS) private readonly declared: Declarations,
  ) {}

  @Get()
  async list(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const page = await this.subscriptions.list(caller.accountId);
    sendPage(res, 200, webhooksPage(caller.frame, page.data, {}, this.done(caller)));
  }

  /** Adds a subscription and sends the browser to the page that shows its signing secret once. */
  @Post()
  async create(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const form = subscriptionForm(caller);
    try {
      const location = await this.forms.once(caller.session, caller.formToken, async () => {
        const created = await this.subscriptions.create(consoleContext(caller), await createInput(form, this.declared.eventNames));
        const { signingSecret, publicKey } = created;
        const note = await this.forms.keepNote(caller.session, 'signingSecret', created.id, {
          reason: 'created',
          signingSecret,
          publicKey,
        });
        return `/console/webhooks/${created.id}/secret/${note}`;
      });
      res.redirect(303, location);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === 'formTokenMissing') throw error;
      const page = await this.subscriptions.list(caller.accountId);
      sendPage(
        res,
        STATUS_BY_KIND[error.kind],
        webhooksPage(caller.frame, page.data, form, refusal(error, 'The subscription was not added.')),
      );
    }
  }

  /** A signing secret, once (added or rotated): its note is deleted as this page shows it; a reload finds it gone (410). */
  @Get(':webhookId/secret/:noteId')
  async secret(
    @Caller() caller: ConsoleCaller,
    @Param('webhookId') webhookId: string,
    @Param('noteId') noteId: string,
    @Res() res: Response,
  ): Promise<void> {
    await this.subscriptions.get(caller.accountId, webhookId); // another account's subscription: 404
    const note = await this.forms.takeNote(caller.session, noteId, 'signingSecret', webhookId);
    if (note) sendPage(res, 200, secretShownPage(caller.frame, webhookId, note));
    else sendPage(res, 410, secretGonePage(caller.frame, webhookId));
  }

  /** The subscription and its delivery log (newest first, filtered by status and event name, 20 a page). */
  @Get(':webhookId')
  async show(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const accountId = caller.accountId;
    const subscription = await this.subscriptions.get(accountId, webhookId);
    const query = await logQueryOf(caller, DELIVERIES_PER_PAGE);
    const log = await this.subscriptions.deliveries(accountId, webhookId, query);
    sendPage(
      res,
      200,
      subscriptionPage(
        caller.frame,
        {
          subscription,
          deliveries: log.data,
          nextCursor: log.nextCursor,
          paged: query.cursor !== undefined,
          filter: logFilterOf(query),
          eventNames: this.declared.eventNames,
        },
        this.done(caller),
      ),
    );
  }

  @Get(':webhookId/settings')
  async settings(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const subscription = await this.subscriptions.get(caller.accountId, webhookId);
    sendPage(res, 200, settingsPage(caller.frame, { subscription, eventNames: this.declared.eventNames }));
  }

  /** Edit: url, filters and signature schemes (PATCH's rules: URL policy, 409 on another subscription's URL, filters replace). */
  @Post(':webhookId')
  async update(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const form = subscriptionForm(caller);
    try {
      const location = await this.forms.once(caller.session, caller.formToken, async () => {
        const current = await this.subscriptions.get(caller.accountId, webhookId);
        await this.subscriptions.update(consoleContext(caller), webhookId, await updateInput(form, this.declared.eventNames, current.url));
        return `/console/webhooks/${webhookId}?done=saved`;
      });
      res.redirect(303, location);
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind === 'not_found' || error.code === 'formTokenMissing') throw error;
      const subscription = await this.subscriptions.get(caller.accountId, webhookId);
      sendPage(
        res,
        STATUS_BY_KIND[error.kind],
        settingsPage(
          caller.frame,
          { subscription, eventNames: this.declared.eventNames, form },
          refusal(error, 'The changes were not saved.'),
        ),
      );
    }
  }

  @Post(':webhookId/enabled')
  async setEnabled(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const enabled = caller.field('enabled') === 'true';
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      await this.subscriptions.update(consoleContext(caller), webhookId, { enabled });
      return `/console/webhooks/${webhookId}?done=${enabled ? 'enabled' : 'disabled'}`;
    });
    res.redirect(303, location);
  }

  /** A new signing secret, shown once on the page this sends the browser to; the old one keeps signing for 24 hours. */
  @Post(':webhookId/rotate')
  async rotate(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      const { signingSecret, publicKey, previousSecretExpiresAt } = await this.subscriptions.rotateSecret(caller.accountId, webhookId);
      const note = await this.forms.keepNote(caller.session, 'signingSecret', webhookId, {
        reason: 'rotated',
        signingSecret,
        publicKey,
        previousSecretExpiresAt,
      });
      return `/console/webhooks/${webhookId}/secret/${note}`;
    });
    res.redirect(303, location);
  }

  @Get(':webhookId/delete')
  async confirmDelete(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, deleteConfirmPage(caller.frame, await this.subscriptions.get(caller.accountId, webhookId)));
  }

  @Post(':webhookId/delete')
  async remove(@Caller() caller: ConsoleCaller, @Param('webhookId') webhookId: string, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      await this.subscriptions.remove(consoleContext(caller), webhookId);
      return '/console/webhooks?done=deleted';
    });
    res.redirect(303, location);
  }

  private done(caller: ConsoleCaller): Notice | undefined {
    const done = caller.query('done');
    return done === undefined ? undefined : DONE[done];
  }
}
