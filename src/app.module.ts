import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AppConfig } from './config/config';
import { AuthModule } from './modules/auth/auth.module';
import { BookingsModule } from './modules/bookings/bookings.module';
import { CalendarFeedsModule } from './modules/calendar-feeds/calendar-feeds.module';
import { ChecklistsModule } from './modules/checklists/checklists.module';
import { ApiKeyGuard } from './modules/auth/api-key.guard';
import { EventsModule } from './modules/events/events.module';
import { HealthModule } from './modules/health/health.module';
import { JobRequestsModule } from './modules/job-requests/job-requests.module';
import { JobRequestTestHelpersModule } from './modules/job-requests/provider/test-helpers.module';
import { PropertiesModule } from './modules/properties/properties.module';
import { RemindersModule } from './modules/reminders/reminders.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { LegacyModule } from './modules/legacy/legacy.module';
import { JsonBodyMiddleware } from './platform/http/json-body.middleware';
import { ProblemFilter } from './platform/http/problem.filter';
import { RequestIdMiddleware } from './platform/http/request-id';
import { RateLimiter } from './platform/http/rate-limit.service';
import { StrictRequestGuard } from './platform/http/strict-request.guard';
import { StrictValidationPipe } from './platform/http/strict-validation.pipe';
import { PlatformModule } from './platform/platform.module';
import { OpenApiModule } from './openapi/openapi.module';
import { QueueDashboardModule } from './admin/queue-dashboard.module';

/**
 * The API process. Every request passes: request id → (request log, unless silent) → JSON
 * body → auth and rate limit guard → strict request guard (unreadable bodies, undeclared query
 * or body fields) → (idempotency interceptor) → strict validation → controller.
 */
/**
 * The modules that serve the API's routes. Apart so that a test can read the routes their
 * controllers declare before an app starts (test/support/openapi-operations.ts), without calling
 * PlatformModule.forRoot (which registers the data source).
 */
export function apiModules(config: AppConfig) {
  return [
    AuthModule,
    EventsModule,
    HealthModule,
    PropertiesModule,
    ChecklistsModule,
    BookingsModule,
    JobRequestsModule,
    // Test helpers exist only when switched on (never in production): otherwise their routes are 404s.
    ...(config.testHelpersEnabled ? [JobRequestTestHelpersModule] : []),
    RemindersModule,
    WebhooksModule,
    LegacyModule,
    CalendarFeedsModule,
    OpenApiModule,
  ];
}

@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(config, 'api'),
        ...apiModules(config),
        ...(config.ops.admin ? [QueueDashboardModule.forRoot(config.ops.admin)] : []),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        // Who is calling and how often, decided together (the key lookup and the limit run concurrently).
        RateLimiter,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        // Guards run in the order registered. Then bodies the JSON middleware could not read (now that the caller is known and counted),
        // and query parameters or body fields sent to routes that declare none.
        { provide: APP_GUARD, useClass: StrictRequestGuard },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestIdMiddleware, JsonBodyMiddleware).forRoutes('*path');
  }
}
