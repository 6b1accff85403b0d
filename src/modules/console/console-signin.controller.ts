import { Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Public } from '../../platform/http/public.decorator';
import { ConsoleAssets } from './console-assets';
import { ConsoleErrorFilter } from './console-error.filter';
import { ASSET_CACHE_CONTROL } from './console-http.rules';
import { Caller, ConsoleCaller, ConsoleRequest, ConsoleSessionGuard } from './console-session.guard';
import { ConsoleSessionsService } from './console-sessions.service';
import { consoleCookie, newToken, readCookie, sameSecret, securePublicUrl, SESSION_COOKIE, SIGNIN_COOKIE } from './console.rules';
import { sendPage } from './console-response';
import { linkRefusedPage, signedOutPage, signInPage } from './views/signin.view';

const LINK_REFUSAL_STATUS = { invalid: 400, used: 410, expired: 410 } as const;
/** How long the sign-in page's nonce lives: the page submits itself at once. */
const SIGNIN_NONCE_SECONDS = 600;

/**
 * Signing in and out, and the console's static files. Outside /v1 and outside the API's key guard
 * (@Public): these routes use the console's own session, which never authenticates /v1.
 */
@ApiExcludeController()
@Public()
@UseFilters(ConsoleErrorFilter)
@Controller('console')
export class ConsoleSignInController {
  constructor(
    private readonly sessions: ConsoleSessionsService,
    private readonly assets: ConsoleAssets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The link lands here. Nothing is used yet: the page posts the token (its script does so at once). */
  @Get('signin')
  async landing(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    const check = await this.sessions.checkLink(token);
    if (!check.ok) return sendPage(res, LINK_REFUSAL_STATUS[check.reason], linkRefusedPage(this.assets.urls, check.reason, this.local));
    const nonce = newToken();
    res.append('Set-Cookie', consoleCookie(SIGNIN_COOKIE, nonce, { secure: this.secure, maxAgeSeconds: SIGNIN_NONCE_SECONDS }));
    sendPage(res, 200, signInPage(this.assets.urls, token as string, nonce));
  }

  /**
   * Uses the link (once), opens the session and redirects to /console, so the token leaves the address bar.
   * The nonce cookie proves the post comes from the landing page in this browser: another site cannot sign
   * a visitor in to an account of its choosing (login CSRF).
   */
  @Post('signin')
  async signIn(@Req() req: ConsoleRequest, @Res() res: Response): Promise<void> {
    const nonce = readCookie(req.headers.cookie, SIGNIN_COOKIE);
    if (!nonce || !sameSecret(req.body?.nonce, nonce)) {
      return sendPage(res, 403, linkRefusedPage(this.assets.urls, 'invalid', this.local));
    }
    const result = await this.sessions.exchange(req.body?.token);
    if (!result.ok) return sendPage(res, LINK_REFUSAL_STATUS[result.reason], linkRefusedPage(this.assets.urls, result.reason, this.local));
    res.append('Set-Cookie', consoleCookie(SIGNIN_COOKIE, '', { secure: this.secure, maxAgeSeconds: 0 }));
    // No Max-Age: a browser-session cookie; the server ends the session after idling or at its absolute limit.
    res.append('Set-Cookie', consoleCookie(SESSION_COOKIE, result.cookieToken, { secure: this.secure }));
    res.redirect(303, '/console');
  }

  /** Ends the session and sends the browser to a page saying so (a reload of that page posts nothing). */
  @Post('signout')
  @UseGuards(ConsoleSessionGuard)
  async signOut(@Caller() caller: ConsoleCaller, @Res() res: Response): Promise<void> {
    await this.sessions.signOut(caller.session.id);
    res.append('Set-Cookie', consoleCookie(SESSION_COOKIE, '', { secure: this.secure, maxAgeSeconds: 0 }));
    res.redirect(303, '/console/signedout');
  }

  /** Outside the session (it has ended): says so whoever opens it. */
  @Get('signedout')
  signedOut(@Res() res: Response): void {
    sendPage(res, 200, signedOutPage(this.assets.urls, 'signedOut', this.local));
  }

  @Get('assets/:file')
  @HttpCode(200)
  asset(@Param('file') file: string, @Res() res: Response): void {
    const asset = this.assets.find(`/console/assets/${file}`);
    if (!asset) throw new NotFoundException(`No console asset ${file}`);
    res.set({ 'Content-Type': asset.type, 'Cache-Control': ASSET_CACHE_CONTROL }).send(asset.body);
  }

  /** Outside production the pages name the CLI's way in (there may be no web app). */
  private get local(): boolean {
    return !this.config.isProduction;
  }

  private get secure(): boolean {
    return securePublicUrl(this.config);
  }
}
