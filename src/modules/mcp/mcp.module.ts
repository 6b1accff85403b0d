import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RouteDocs } from '../../platform/openapi/route-docs';
import { BookingsModule } from '../bookings/bookings.module';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { JobRequestsModule } from '../job-requests/job-requests.module';
import { PropertiesModule } from '../properties/properties.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { McpToolsService } from './mcp-tools.service';

/**
 * The MCP tools over the modules' services (transport-free); the endpoint is McpHttpModule's. Their
 * descriptions are their routes' @RouteDoc (RouteDocs reads them from the app's controllers).
 */
@Module({
  imports: [DiscoveryModule, PropertiesModule, ChecklistsModule, BookingsModule, JobRequestsModule, EventsModule, WebhooksModule],
  providers: [McpToolsService, RouteDocs],
  exports: [McpToolsService],
})
export class McpModule {}
