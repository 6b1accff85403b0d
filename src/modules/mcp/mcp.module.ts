import { Module } from '@nestjs/common';
import { BookingsModule } from '../bookings/bookings.module';
import { ChecklistsModule } from '../checklists/checklists.module';
import { EventsModule } from '../events/events.module';
import { JobRequestsModule } from '../job-requests/job-requests.module';
import { PropertiesModule } from '../properties/properties.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { McpToolsService } from './mcp-tools.service';

/** The MCP tools over the modules' services (transport-free); the endpoint is McpHttpModule's. */
@Module({
  imports: [PropertiesModule, ChecklistsModule, BookingsModule, JobRequestsModule, EventsModule, WebhooksModule],
  providers: [McpToolsService],
  exports: [McpToolsService],
})
export class McpModule {}
