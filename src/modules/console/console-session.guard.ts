import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Request } from 'express';
import { NotFoundError } from '../../platform/errors/domain-error';
import { ConsoleSignedOutError, CsrfTokenError } from './console.errors';
import { keyLimitError } from '../../platform/http/rate-limit.errors';
import { RateLimiter } from '../../platform/http/rate-limit.service';
import { AccountsService } from '../auth/accounts.service';
import { hasApiAccess } from '../auth/auth.rules';
import { ConsoleAssets } from './console-assets';
import { ConsoleSession } from './console-sessions.repository';
import { ConsoleSessionsService } from './console-sessions.service';
import { hashToken, readCookie, sameSecret, SESSION_COOKIE } from './console.rules';
import { Frame } from './views/layout';

/** What a signed-in console request knows: its session and the frame every page shows. */
export interface ConsoleCaller {
  session: ConsoleSession;
  frame: Frame;
  requestId: string;
}

export type ConsoleRequest = Request & { id: string; console?: ConsoleCaller; body?: Record<string, unknown> };

/**
 * The console's guard: a live session from the HttpOnly cookie (never an x-api-key; and the cookie never
 * reaches /v1, whose guard reads only x-api-key), and for every state change the session's CSRF token in
 * the form, then the same per-caller rate limits as the API (counted per account's console).
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  private limiter?: RateLimiter;

  constructor(
    private readonly sessions: ConsoleSessionsService,
    private readonly accounts: AccountsService,
    private readonly assets: ConsoleAssets,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ConsoleRequest>();
    const session = await this.sessions.session(readCookie(req.headers.cookie, SESSION_COOKIE));
    if (!session) throw new ConsoleSignedOutError();
    const account = await this.accounts.findAccount(session.accountId);
    if (!account) throw new NotFoundError('Account', session.accountId);
    req.console = {
      session,
      requestId: req.id,
      frame: {
        csrfToken: session.csrfToken,
        accountId: account.id,
        accountName: account.name,
        plan: account.plan,
        subscriptionStatus: account.subscriptionStatus,
        apiAccess: hasApiAccess(account.plan, account.subscriptionStatus),
        assets: this.assets.urls,
      },
    };
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    if (!sameSecret(req.body?._csrf, session.csrfToken)) throw new CsrfTokenError();
    const decision = await this.rateLimiter().takeKey(hashToken(`console:${session.accountId}`));
    if (decision.outcome !== 'allowed') throw keyLimitError(decision, this.rateLimiter().keyLimits);
    return true;
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
