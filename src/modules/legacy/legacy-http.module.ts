import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { LegacyDeprecationMiddleware } from './legacy-deprecation.middleware';
import { LegacyController } from './legacy.controller';
import { LegacyModule } from './legacy.module';

/** The legacy routes (batches and the legacy webhook), each answered with the deprecation headers. Only the app module imports it. */
@Module({ imports: [LegacyModule, WebhooksModule], controllers: [LegacyController] })
export class LegacyHttpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(LegacyDeprecationMiddleware).forRoutes('legacy', 'legacy/*path');
  }
}
