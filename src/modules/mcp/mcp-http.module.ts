import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
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
    consumer.apply(McpMethodsMiddleware).forRoutes({ path: 'v1/mcp', method: RequestMethod.ALL });
  }
}
