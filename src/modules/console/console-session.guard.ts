import { CanActivate, createParamDecorator, CustomDecorator, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { NotFoundError } from '../../platform/errors/domain-error';
import { ApiAccessPausedError, ConsoleSignedOutError, CsrfTokenError } from './console.errors';
import { keyLimitError } from '../../platform/http/rate-limit.errors';
import { RateLimiter } from '../../platform/http/rate-limit.service';
import { AccountsService } from '../auth/accounts.service';
import { hasApiAccess } from '../auth/auth.rules';
import { ConsoleAssets } from './console-assets';
import { ConsoleSession } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';
import { hashToken, inTestMode, readCookie, sameSecret, SESSION_COOKIE } from './console.rules';
import { Frame } from './views/layout';

/** What a signed-in console request knows: its session, the frame every page shows, and its text inputs. */
export interface ConsoleCaller {
  session: ConsoleSession;
  /**
   * Whose data the data pages (webhooks, deliveries, events) show and change: the session's account, or in test
   * mode its sandbox. Keys are always the session's account's (`session.accountId`): test keys belong to it.
   */
  accountId: string;
  frame: Frame;
  requestId: string;
  /** A text field of the posted form (urlencoded); anything else (absent, repeated) is undefined. */
  field(name: string): string | undefined;
  /** The posted form's one-post token (`_form`, see ConsoleFormsService.once). */
  formToken: string | undefined;
  /** A query parameter given once; anything else (absent, repeated, nested) is undefined. */
  query(name: string): string | undefined;
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export type ConsoleRequest = Request & { id: string; console?: ConsoleCaller; body?: Record<string, unknown> };

const API_ACCESS_REQUIRED = 'console:apiAccessRequired';

/**
 * Pages that follow the API's rule (spec 5.3: webhooks, events): refused while the account's API access is
 * paused, with `what` naming what is not available. On a controller or a handler.
 */
export const RequiresApiAccess = (what: string): CustomDecorator => SetMetadata(API_ACCESS_REQUIRED, what);

/**
 * The console's guard: a live session from the HttpOnly cookie (never an x-api-key; and the cookie never
 * reaches /v1, whose guard reads only x-api-key), and for every state change the session's CSRF token in
 * the form, then the same per-caller rate limits as the API (counted per account's console); last, for
 * pages marked @RequiresApiAccess, the account's API access.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  private limiter?: RateLimiter;

  constructor(
    private readonly sessions: ConsoleSessionsService,
    private readonly accounts: AccountsService,
    private readonly assets: ConsoleAssets,
    private readonly moduleRef: ModuleRef,
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ConsoleRequest>();
    const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
    const session = await this.sessions.session(cookie);
    if (!session) throw new ConsoleSignedOutError(cookie ? 'ended' : 'never');
    const account = await this.accounts.findAccount(session.accountId);
    if (!account) throw new NotFoundError('Account', session.accountId);
    const testMode = inTestMode(req.headers.cookie, session.id);
    req.console = {
      session,
      accountId: testMode ? await this.accounts.ensureSandbox(account.id) : account.id,
      requestId: req.id,
      field: (name) => textOf(req.body?.[name]),
      formToken: textOf(req.body?._form),
      query: (name) => textOf(req.query[name]),
      frame: {
        csrfToken: session.csrfToken,
        accountId: account.id,
        accountName: account.name,
        plan: account.plan,
        subscriptionStatus: account.subscriptionStatus,
        apiAccess: hasApiAccess(account.plan, account.subscriptionStatus),
        testMode,
        path: req.originalUrl.split('?')[0],
        assets: this.assets.urls,
        allowPrivateUrls: this.config.allowPrivateUrls,
      },
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') await this.checkStateChange(req, session);
    const unavailable = this.reflector.getAllAndOverride<string | undefined>(API_ACCESS_REQUIRED, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (unavailable !== undefined && !req.console.frame.apiAccess) throw new ApiAccessPausedError(unavailable);
    return true;
  }

  /** A state change carries the session's CSRF token and counts against the account's console rate limit. */
  private async checkStateChange(req: ConsoleRequest, session: ConsoleSession): Promise<void> {
    if (!sameSecret(req.body?._csrf, session.csrfToken)) throw new CsrfTokenError();
    const decision = await this.rateLimiter().takeKey(hashToken(`console:${session.accountId}`));
    if (decision.outcome !== 'allowed') throw keyLimitError(decision, this.rateLimiter().keyLimits);
  }

  /** The API's limiter (the app module's): resolved on first use, once every module is up. */
  private rateLimiter(): RateLimiter {
    this.limiter ??= this.moduleRef.get(RateLimiter, { strict: false });
    return this.limiter;
  }
}

/** `@Caller() caller: ConsoleCaller` in a console handler behind ConsoleSessionGuard. */
export const Caller = createParamDecorator((_data: unknown, host: ExecutionContext): ConsoleCaller => {
  const caller = host.switchToHttp().getRequest<ConsoleRequest>().console;
  if (!caller) throw new Error('@Caller() used on a route without ConsoleSessionGuard');
  return caller;
});
