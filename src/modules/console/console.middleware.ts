import { Injectable, NestMiddleware } from '@nestjs/common';
import { urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { CONSOLE_PAGE_HEADERS } from './console-http.rules';

/** Forms are small: a label, a URL, a few filters. */
const MAX_FORM_BYTES = 32 * 1024;
const parseForm = urlencoded({ extended: false, limit: MAX_FORM_BYTES, parameterLimit: 50 });

/**
 * Every /console request: the security headers (CSP, no-store, no framing, no referrer) and, for a form
 * post, its application/x-www-form-urlencoded body (the API's JSON body middleware skips /console). An
 * unreadable or oversized form is answered here, in plain words.
 */
@Injectable()
export class ConsoleMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    res.set(CONSOLE_PAGE_HEADERS);
    if (req.method !== 'POST') return next();
    parseForm(req, res, (error?: unknown) => {
      if (!error) return next();
      const status = (error as { type?: string }).type === 'entity.too.large' ? 413 : 400;
      res
        .status(status)
        .type('text/plain')
        .send(status === 413 ? 'The form is too large.' : 'The form could not be read.');
    });
  }
}
