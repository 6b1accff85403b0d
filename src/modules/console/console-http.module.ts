import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { SandboxModule } from '../sandbox/sandbox.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ConsoleAssets } from './console-assets';
import { ConsoleDeliveriesController } from './console-deliveries.controller';
import { ConsoleErrorFilter } from './console-error.filter';
import { ConsolePagesController } from './console-pages.controller';
import { ConsoleSessionGuard } from './console-session.guard';
import { ConsoleSignInController } from './console-signin.controller';
import { ConsoleTestModeController } from './console-test-mode.controller';
import { ConsoleWebhooksController } from './console-webhooks.controller';
import { ConsoleMiddleware } from './console.middleware';
import { ConsoleModule } from './console.module';

/**
 * The account console's pages at /console (docs/console.md), served by the API process: server-rendered
 * HTML over the console's core services and the webhooks and events modules' services. Only the app
 * module imports it.
 */
@Module({
  imports: [ConsoleModule, AuthModule, WebhooksModule, EventsModule, SandboxModule],
  controllers: [
    ConsoleSignInController,
    ConsolePagesController,
    ConsoleWebhooksController,
    ConsoleDeliveriesController,
    ConsoleTestModeController,
  ],
  providers: [ConsoleAssets, ConsoleSessionGuard, ConsoleErrorFilter],
})
export class ConsoleHttpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ConsoleMiddleware).forRoutes('console', 'console/*path');
  }
}
