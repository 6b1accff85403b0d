import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { AppConfig } from './config/config';
import { ApiKeyGuard } from './modules/auth/api-key.guard';
import { JobRequestTestHelpersModule } from './modules/job-requests/provider/test-helpers.module';
import { DECLARED, HTTP_MODULES } from './modules/modules';
import { McpHttpModule } from './modules/mcp/mcp-http.module';
import { EntryMiddleware } from './http-entry.middleware';
import { ProblemFilter } from './platform/http/problem.filter';
import { RouteMethods } from './platform/http/route-methods';
import { RoutePlans } from './modules/auth/route-plans';
import { RateLimiter } from './platform/http/rate-limit.service';
import { StrictRequestGuard } from './platform/http/strict-request.guard';
import { StrictValidationPipe } from './platform/http/strict-validation.pipe';
import { DeclarationsModule } from './platform/modules/declarations.module';
import { PlatformModule } from './platform/platform.module';
import { dataSourceOptions } from './database/data-source';
import { OpenApiModule } from './openapi/openapi.module';
import { QueueDashboardModule } from './admin/queue-dashboard.module';

/**
 * The API process. Every request passes: (request log, unless silent) → the entry middleware (request
 * id, the key check and rate limit for a planned route, JSON body) → auth and rate limit guard (for a
 * route the entry did not plan) → strict request guard (unreadable bodies, undeclared query or body
 * fields) → (idempotency interceptor) → strict validation → controller.
 */
/**
 * The modules that serve the API's routes. Apart so that a test can read the routes their
 * controllers declare before an app starts (test/support/openapi-operations.ts), without calling
 * PlatformModule.forRoot (which registers the data source).
 */
export function apiModules(_config: AppConfig) {
  return [
    DeclarationsModule.forRoot(DECLARED),
    ...HTTP_MODULES,
    // Test helpers: test keys everywhere, live keys only where TEST_HELPERS_ENABLED=true (@TestModeOnly, read by the key guard).
    JobRequestTestHelpersModule,
    McpHttpModule,
    OpenApiModule,
  ];
}

@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(config, 'api', dataSourceOptions(config)),
        DiscoveryModule,
        ...apiModules(config),
        ...(config.ops.admin ? [QueueDashboardModule.forRoot(config.ops.admin)] : []),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        RouteMethods,
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        // Who is calling and how often, decided together (the key lookup and the limit run concurrently).
        RateLimiter,
        RoutePlans,
        // One instance: the entry middleware runs its check for planned routes, the global guard for the rest.
        ApiKeyGuard,
        { provide: APP_GUARD, useExisting: ApiKeyGuard },
        // Guards run in the order registered. Then bodies the JSON middleware could not read (now that the caller is known and counted),
        // and query parameters or body fields sent to routes that declare none.
        { provide: APP_GUARD, useClass: StrictRequestGuard },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(EntryMiddleware).forRoutes('*path');
  }
}
