import { Controller, Get, Inject, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../platform/http/public.decorator';
import { DECLARATIONS, type Declarations } from '../../platform/modules/module-declaration';
import { EventsService } from '../events/events.service';
import { WebhookSubscriptionsService } from '../webhooks/subscriptions/webhook-subscriptions.service';
import { ConsoleErrorFilter } from './console-error.filter';
import { ConsoleFormsService } from './console-forms.service';
import { ConsoleKeysService } from './console-keys.service';
import { Caller, ConsoleCaller, ConsoleSessionGuard, RequiresApiAccess } from './console-session.guard';
import { sendPage } from './console-response';
import { eventsPage } from './views/events.view';
import { keyCreatedPage, keyShownPage, keysPage, revokeConfirmPage } from './views/keys.view';
import { Notice } from './views/layout';
import { overviewPage } from './views/overview.view';

const EVENTS_PER_PAGE = 50;

const KEY_NOTICES: Record<string, Notice> = {
  revoked: { kind: 'ok', text: 'The key is revoked: its next request is refused.' },
};

/** The overview, the "API and AI assistants" page (spec 5.4-5.6) and the events feed. */
@ApiExcludeController()
@Public()
@UseGuards(ConsoleSessionGuard)
@UseFilters(ConsoleErrorFilter)
@Controller('console')
export class ConsolePagesController {
  constructor(
    private readonly keys: ConsoleKeysService,
    private readonly forms: ConsoleFormsService,
    private readonly subscriptions: WebhookSubscriptionsService,
    private readonly events: EventsService,
    @Inject(DECLARATIONS) private readonly declared: Declarations,
  ) {}

  @Get()
  async overview(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const { keys } = await this.keys.overview(caller.session.accountId);
    const subscriptions = caller.frame.apiAccess ? (await this.subscriptions.list(caller.accountId)).data.length : null;
    sendPage(
      res,
      200,
      overviewPage(caller.frame, {
        sessionId: caller.session.id,
        signedInAt: caller.session.createdAt,
        liveKeys: keys.filter((k) => !k.revokedAt && !k.test).length,
        testKeys: keys.filter((k) => !k.revokedAt && k.test).length,
        subscriptions,
      }),
    );
  }

  @Get('keys')
  async keysPage(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const done = caller.query('done');
    const data = await this.keys.overview(caller.session.accountId);
    sendPage(res, 200, keysPage(caller.frame, data, done === undefined ? undefined : KEY_NOTICES[done]));
  }

  /** Creates a Platform key, live or test (once per form) and sends the browser to the page that shows it once. */
  @Post('keys')
  async createKey(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      const created = await this.keys.create(caller.session, caller.field('label'), caller.field('test') === 'true');
      const note = await this.forms.keepNote(caller.session, 'apiKey', created.apiKeyId, created);
      return `/console/keys/created/${note}`;
    });
    res.redirect(303, location);
  }

  /** The new key, once: its note is deleted as this page shows it, so a reload shows it no more (410). */
  @Get('keys/created/:noteId')
  async keyCreated(@Caller() caller: ConsoleCaller, @Param('noteId') noteId: string, @Res() res: Response): Promise<void> {
    const created = await this.forms.takeNote(caller.session, noteId, 'apiKey');
    if (created) sendPage(res, 200, keyCreatedPage(caller.frame, created));
    else sendPage(res, 410, keyShownPage(caller.frame));
  }

  @Get('keys/:apiKeyId/revoke')
  async confirmRevoke(@Caller() caller: ConsoleCaller, @Param('apiKeyId') apiKeyId: string, @Res() res: Response): Promise<void> {
    const key = await this.keys.find(caller.session.accountId, apiKeyId);
    if (key.revokedAt) return res.redirect(303, '/console/keys?done=revoked');
    sendPage(res, 200, revokeConfirmPage(caller.frame, key));
  }

  @Post('keys/:apiKeyId/revoke')
  async revoke(@Caller() caller: ConsoleCaller, @Param('apiKeyId') apiKeyId: string, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      await this.keys.revoke(caller.session, apiKeyId);
      return '/console/keys?done=revoked';
    });
    res.redirect(303, location);
  }

  @Get('events')
  @RequiresApiAccess('Events are not available')
  async eventsFeed(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const name = caller.query('eventName') || undefined;
    const page = await this.events.newestFirst(caller.accountId, {
      eventName: name,
      before: caller.query('before'),
      limit: EVENTS_PER_PAGE,
    });
    sendPage(
      res,
      200,
      eventsPage(caller.frame, { events: page.data, eventName: name, eventNames: this.declared.eventNames, nextCursor: page.nextCursor }),
    );
  }
}
