import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { LegacyApiRetiredError } from './legacy.errors';
import { deprecationHeaders, isRetired } from './legacy.rules';

/**
 * Runs on every /legacy request before the guards, so every answer (401, 403, 404, 429, 400 and the
 * route's own) carries Deprecation, Sunset and Link (spec 9.2). From LEGACY_SUNSET_AT on it answers
 * 410 legacyApiRetired itself: a retired API checks no key.
 */
@Injectable()
export class LegacyDeprecationMiddleware implements NestMiddleware {
  private readonly headers: Record<string, string>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.headers = deprecationHeaders(config.legacy.sunsetAt, config.legacy.docsUrl);
  }

  use(_req: Request, res: Response, next: NextFunction): void {
    res.set(this.headers);
    if (isRetired(new Date(), this.config.legacy.sunsetAt)) throw new LegacyApiRetiredError(this.config.legacy.sunsetAt);
    next();
  }
}
