import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { DomainError, FieldIssue } from '../../platform/errors/domain-error';
import { STATUS_BY_KIND } from '../../platform/http/problem';
import { ConsoleAssets } from './console-assets';
import { ConsoleRequest } from './console-session.guard';
import { ConsoleSignedOutError } from './console.errors';
import { consoleCookie, securePublicUrl, SESSION_COOKIE } from './console.rules';
import { Section } from './views/layout';
import { errorPage, signedOutPage } from './views/signin.view';

const TITLES: Partial<Record<number, string>> = {
  400: 'Not accepted',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  429: 'Too many requests',
  503: 'Service unavailable',
};

/** Where "Back" goes from a refused action: the subscription's page, or the section's. */
function backFrom(path: string): { section: Section; back: string } {
  const [, , section = '', id] = path.split('/');
  if (section === 'webhooks')
    return { section: 'webhooks', back: id?.startsWith('sub_') ? `/console/webhooks/${id}` : '/console/webhooks' };
  if (section === 'keys' || section === 'events') return { section, back: `/console/${section}` };
  return { section: 'overview', back: '/console' };
}

/**
 * The console answers with pages, not problem documents: an error is shown in words, with its status
 * (400, 403, 404, 409, 429, 503...) and headers (Retry-After), inside the signed-in frame when there is one.
 */
@Catch()
export class ConsoleErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(ConsoleErrorFilter.name);

  constructor(
    private readonly assets: ConsoleAssets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<ConsoleRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (error instanceof ConsoleSignedOutError) {
      res.set('Set-Cookie', consoleCookie(SESSION_COOKIE, '', { secure: securePublicUrl(this.config), maxAgeSeconds: 0 }));
      res
        .status(401)
        .type('html')
        .send(signedOutPage(this.assets.urls, error.why, !this.config.isProduction).value);
      return;
    }
    let status = 500;
    let detail = 'Something went wrong on our side. Try again in a moment.';
    let errors: FieldIssue[] | undefined;
    if (error instanceof DomainError) {
      status = STATUS_BY_KIND[error.kind];
      detail = error.message;
      errors = error.extras.errors as FieldIssue[] | undefined;
      res.set(error.headers);
    } else if (error instanceof HttpException) {
      status = error.getStatus();
      detail = error.message;
    } else {
      this.logger.error({ requestId: req.id, error: (error as Error)?.message }, 'console request failed');
    }
    const { section, back } = backFrom(req.path);
    const title = TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
    res
      .status(status)
      .type('html')
      .send(errorPage(req.console?.frame, this.assets.urls, section, { status, title, detail, errors }, back).value);
  }
}
