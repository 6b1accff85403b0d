import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { McpExchangeService } from './mcp-exchange.service';
import { McpMethodsMiddleware } from './mcp-methods.middleware';
import { McpController } from './mcp.controller';
import { McpModule } from './mcp.module';

/** POST /v1/mcp (GET and DELETE: 405), behind the API's key, rate-limit and plan checks like every route. */
@Module({
  imports: [McpModule],
  controllers: [McpController],
  providers: [McpExchangeService],
})
export class McpHttpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // Mounted like the app's own middleware (a prefix `use`, one path check per request): an exact path would be
    // mounted as a route for every method, and those would be routes of the API without an operation.
    consumer.apply(McpMethodsMiddleware).forRoutes('*path');
  }
}
