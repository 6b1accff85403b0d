import { Controller, Get, Inject, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Public } from '../../platform/http/public.decorator';
import { SandboxResetService } from '../sandbox/sandbox-reset.service';
import { ConsoleErrorFilter } from './console-error.filter';
import { ConsoleFormsService } from './console-forms.service';
import { sendPage } from './console-response';
import { Caller, ConsoleCaller, ConsoleSessionGuard } from './console-session.guard';
import { CONSOLE_PATH, consoleCookie, MODE_COOKIE, securePublicUrl } from './console.rules';
import { resetConfirmPage, resetDonePage } from './views/test-mode.view';

/** Test mode in the console (docs/test-mode.md): the session's mode switch, and clearing the sandbox. */
@ApiExcludeController()
@Public()
@UseGuards(ConsoleSessionGuard)
@UseFilters(ConsoleErrorFilter)
@Controller('console')
export class ConsoleTestModeController {
  private readonly secure: boolean;

  constructor(
    private readonly forms: ConsoleFormsService,
    private readonly sandbox: SandboxResetService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.secure = securePublicUrl(config);
  }

  /** Switches the session's mode and goes back to the page it was posted from (a console path only). */
  @Post('mode')
  switchMode(@Caller() caller: ConsoleCaller, @Res() res: Response): void {
    const back = caller.field('back') ?? '';
    const to = /^\/console(\/[A-Za-z0-9_/-]*)?$/.test(back) ? back : CONSOLE_PATH;
    const test = caller.field('mode') === 'test';
    res.append(
      'Set-Cookie',
      consoleCookie(MODE_COOKIE, test ? caller.session.id : '', { secure: this.secure, maxAgeSeconds: test ? undefined : 0 }),
    );
    res.redirect(303, to);
  }

  @Get('sandbox/reset')
  confirmReset(@Caller() caller: ConsoleCaller, @Res() res: Response): void {
    sendPage(res, 200, resetConfirmPage(caller.frame));
  }

  /**
   * Clears the sandbox once per form (a repeated post is sent to the first one's result). The result page's
   * address carries the row count, so any API process shows it.
   */
  @Post('sandbox/reset')
  async reset(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    const location = await this.forms.once(caller.session, caller.formToken, async () => {
      const { deleted } = await this.sandbox.reset(caller.session.accountId);
      return `/console/sandbox/reset/done?rows=${Object.values(deleted).reduce((a, b) => a + b, 0)}`;
    });
    res.redirect(303, location);
  }

  @Get('sandbox/reset/done')
  resetDone(@Caller() caller: ConsoleCaller, @Res() res: Response): void {
    const rows = Number(caller.query('rows'));
    sendPage(res, 200, resetDonePage(caller.frame, Number.isSafeInteger(rows) && rows >= 0 ? rows : 0));
  }
}
