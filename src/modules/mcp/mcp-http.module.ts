import { Module } from '@nestjs/common';
import { McpExchangeService } from './mcp-exchange.service';
import { McpController } from './mcp.controller';
import { McpModule } from './mcp.module';

/** POST /v1/mcp behind the API's key, rate-limit and plan checks like every route; GET and DELETE answer 405. */
@Module({
  imports: [McpModule],
  controllers: [McpController],
  providers: [McpExchangeService],
})
export class McpHttpModule {}
