import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { NotFoundError } from '../../platform/errors/domain-error';
import { newId } from '../../platform/ids/ids';
import { AccountsService } from '../auth/accounts.service';
import { ConsoleSession, ConsoleSessionsRepository } from './console-sessions.repository';
import { hashToken, linkMinutes, linkRefusal, looksLikeLinkToken, newLinkToken, newToken, signInUrl } from './console.rules';
import { CONSOLE_IDS } from './console.ids';

export interface SignInLink {
  url: string;
  expiresAt: string;
}

export type LinkCheck = { ok: true } | { ok: false; reason: 'invalid' | 'used' | 'expired' };

/**
 * Who is signed in to the console. The account holder's identity belongs to the vendor's web app, which
 * mints a short-lived, single-use link (mintLink: the CLI's console:link calls it, and so would the web
 * app); the link's exchange opens a session carried by an HttpOnly cookie.
 */
@Injectable()
export class ConsoleSessionsService {
  constructor(
    private readonly repository: ConsoleSessionsRepository,
    private readonly accounts: AccountsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A sign-in link for the account's console, valid `minutes` (default 15, at most 60) and once. */
  async mintLink(accountId: string, minutes?: number): Promise<SignInLink> {
    const life = linkMinutes(minutes);
    if (!(await this.accounts.findAccount(accountId))) throw new NotFoundError('Account', accountId);
    const token = newLinkToken();
    const expiresAt = new Date(Date.now() + life * 60_000);
    await this.repository.insertLink({ id: newId(CONSOLE_IDS.consoleLink), accountId, tokenHash: hashToken(token), expiresAt });
    return { url: signInUrl(this.config.publicBaseUrl, token), expiresAt: expiresAt.toISOString() };
  }

  /** Whether the link could start a session now (read only: opening the link's page uses nothing). */
  async checkLink(token: unknown): Promise<LinkCheck> {
    const link = looksLikeLinkToken(token) ? await this.repository.findLink(hashToken(token)) : undefined;
    const reason = linkRefusal(link, new Date());
    return reason ? { ok: false, reason } : { ok: true };
  }

  /** Uses the link and opens a session: its cookie token (shown once, stored hashed) and the session. */
  async exchange(token: unknown): Promise<{ ok: true; cookieToken: string; session: ConsoleSession } | Extract<LinkCheck, { ok: false }>> {
    if (!looksLikeLinkToken(token)) return { ok: false, reason: 'invalid' };
    const cookieToken = newToken();
    const session = await this.repository.exchange(hashToken(token), {
      id: newId(CONSOLE_IDS.consoleSession),
      tokenHash: hashToken(cookieToken),
      csrfToken: newToken(),
    });
    if (session) return { ok: true, cookieToken, session };
    // Lost: say why (a concurrent exchange that won reads as used).
    const check = await this.checkLink(token);
    return check.ok ? { ok: false, reason: 'used' } : check;
  }

  /** The live session of a cookie token, its idle clock restarted. */
  async session(cookieToken: string | undefined): Promise<ConsoleSession | undefined> {
    if (!cookieToken || cookieToken.length > 100) return undefined;
    return this.repository.touch(hashToken(cookieToken));
  }

  signOut(sessionId: string): Promise<void> {
    return this.repository.end(sessionId);
  }
}
