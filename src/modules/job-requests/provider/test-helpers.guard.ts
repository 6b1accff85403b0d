import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { ApiRequest } from '../../../platform/http/request-context';

/**
 * Who the test helpers answer (docs/test-mode.md): a test key in every environment, production included (its
 * sandbox is all it can drive); a live key only where TEST_HELPERS_ENABLED=true (never production). Anyone
 * else gets the 404 of a route that does not exist, as before test mode. Runs after the key guard.
 */
@Injectable()
export class TestHelpersGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'testHelpersEnabled'>) {}

  canActivate(context: ExecutionContext): boolean {
    const caller = context.switchToHttp().getRequest<ApiRequest>().caller;
    if (caller?.testMode || this.config.testHelpersEnabled) return true;
    throw new NotFoundException();
  }
}
